import { lineDiff, selects, type Selector } from './approval';
import type { PinsDocument } from './pins-file';

/** `pins list`: one line per tool, pinned ones first, then those waiting for review. */
export function listReport(doc: PinsDocument, selector: Selector | undefined): string {
  const lines = [
    ...doc.pins
      .filter((p) => selects(selector, p))
      .map((p) => `pinned   ${p.backend}:${p.tool}  ${p.sha256.slice(0, 12)}  approved by ${p.approvedBy} at ${p.approvedAt}`),
    ...doc.pending.filter((p) => selects(selector, p)).map((p) => `pending  ${p.backend}:${p.tool}  ${p.sha256.slice(0, 12)}  ${p.reason}, seen ${p.seenAt}`),
  ];
  return lines.length === 0 ? 'no tools' : lines.join('\n');
}

/** `pins diff`: each pending definition against the approved one (`-` approved, `+` seen). */
export function diffReport(doc: PinsDocument, selector: Selector | undefined): string {
  const pending = doc.pending.filter((p) => selects(selector, p));
  if (pending.length === 0) return 'nothing pending';
  return pending
    .map((p) => {
      const pin = doc.pins.find((q) => q.backend === p.backend && q.tool === p.tool);
      const before = pin === undefined ? '' : JSON.stringify(pin.definition, null, 2);
      const header = `${p.backend}:${p.tool} (${p.reason}) ${pin === undefined ? '(no approved definition)' : pin.sha256.slice(0, 12)} -> ${p.sha256.slice(0, 12)}`;
      return `${header}\n${lineDiff(before, JSON.stringify(p.definition, null, 2))}`;
    })
    .join('\n\n');
}

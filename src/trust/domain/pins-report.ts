import { escapeHidden } from '../../registry/domain/sanitize';
import { lineDiff, selects, type Selector } from './approval';
import type { PendingEntry, PinsDocument } from './pins-file';

/**
 * `pins list`: one line per tool, pinned ones first, then those waiting for review, each with its
 * definition's full SHA-256 (what `pins approve --hash` takes).
 */
export function listReport(doc: PinsDocument, selector: Selector | undefined): string {
  const lines = [
    ...doc.pins.filter((p) => selects(selector, p)).map((p) => `pinned   ${p.backend}:${p.tool}  ${p.sha256}  approved by ${p.approvedBy} at ${p.approvedAt}`),
    ...doc.pending.filter((p) => selects(selector, p)).map((p) => `pending  ${p.backend}:${p.tool}  ${p.sha256}  ${p.reason}, seen ${p.seenAt}`),
  ];
  return lines.length === 0 ? 'no tools' : shown(lines.join('\n'));
}

/**
 * `pins diff`: each pending definition against the approved one, under a header naming both
 * hashes (`-` approved, `+` seen, as in the diff below it). Approving with `--hash` and the `+`
 * hash approves exactly the definition shown, or nothing.
 */
export function diffReport(doc: PinsDocument, selector: Selector | undefined): string {
  const pending = doc.pending.filter((p) => selects(selector, p));
  if (pending.length === 0) return 'nothing pending';
  return shown(pending.map((p) => diffOf(doc, p)).join('\n\n'));
}

function diffOf(doc: PinsDocument, p: PendingEntry): string {
  const pin = doc.pins.find((q) => q.backend === p.backend && q.tool === p.tool);
  const before = pin === undefined ? '' : JSON.stringify(pin.definition, null, 2);
  return [
    `${p.backend}:${p.tool} (${p.reason})`,
    `- sha256 ${pin === undefined ? '(no approved definition)' : pin.sha256}`,
    `+ sha256 ${p.sha256}`,
    lineDiff(before, JSON.stringify(p.definition, null, 2)),
  ].join('\n');
}

/**
 * The report as a reviewer's terminal may print it: a definition is a backend's text, and an
 * invisible character in it (a bidi override, a tag character, an escape) would be obeyed or
 * hidden by the terminal rather than seen. JSON already escapes C0 controls; the rest is shown as
 * `\u{XXXX}`.
 */
function shown(text: string): string {
  return escapeHidden(text);
}

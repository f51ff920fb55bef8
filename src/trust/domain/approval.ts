import type { PendingEntry, PinEntry, PinsDocument } from './pins-file';

/** `backend` or `backend:tool`: which pending entries a command concerns (none given: all). */
export interface Selector {
  backend: string;
  tool?: string;
}

/** Parses a `backend[:tool]` argument; undefined when it is empty or malformed. */
export function parseSelector(text: string): Selector | undefined {
  const colon = text.indexOf(':');
  const backend = colon < 0 ? text : text.slice(0, colon);
  const tool = colon < 0 ? undefined : text.slice(colon + 1);
  if (!/^[a-z][a-z0-9-]{0,62}$/.test(backend) || tool === '') return undefined;
  return tool === undefined ? { backend } : { backend, tool };
}

/** Shortest `--hash` accepted: 8 hex digits (32 bits) leave no room to hit another definition by chance. */
export const MIN_HASH_DIGITS = 8;

/** Parses `--hash`: 8 to 64 hex digits, either case, as lower case; undefined when it is not that. */
export function parseHashPrefix(text: string): string | undefined {
  return new RegExp(`^[0-9a-fA-F]{${MIN_HASH_DIGITS},64}$`).test(text) ? text.toLowerCase() : undefined;
}

/**
 * The pending entries `selector` names whose hash does not start with `prefix`: an approval bound
 * to a reviewed definition approves nothing when the backend has served another one since.
 */
export function hashMismatches(doc: PinsDocument, selector: Selector, prefix: string): PendingEntry[] {
  return doc.pending.filter((p) => selects(selector, p) && !p.sha256.startsWith(prefix));
}

/**
 * Why `selector` names no backend: neither the config nor the pins file knows it. Undefined when
 * one of them does (a backend removed from the config keeps its entries in the file).
 */
export function unknownBackendMessage(doc: PinsDocument, selector: Selector, configured: readonly string[]): string | undefined {
  const known = configured.includes(selector.backend) || [...doc.pins, ...doc.pending].some((e) => e.backend === selector.backend);
  if (known) return undefined;
  return `no backend named ${selector.backend}: the config names ${configured.length === 0 ? 'none' : configured.join(', ')}, and the pins file has no entry of it`;
}

export function selects(selector: Selector | undefined, entry: { backend: string; tool: string }): boolean {
  return selector === undefined || (entry.backend === selector.backend && (selector.tool === undefined || entry.tool === selector.tool));
}

/**
 * Approves the selected pending definitions: each becomes its tool's pin (keeping the first time
 * the tool was seen when it had a pin already) and leaves `pending`.
 */
export function approvePending(doc: PinsDocument, selector: Selector | undefined, by: string, nowIso: string): { doc: PinsDocument; approved: PendingEntry[] } {
  const approved = doc.pending.filter((p) => selects(selector, p));
  if (approved.length === 0) return { doc, approved };
  const key = (e: { backend: string; tool: string }) => `${e.backend}\u0000${e.tool}`;
  const replaced = new Set(approved.map(key));
  const previous = new Map(doc.pins.map((p) => [key(p), p]));
  const pins: PinEntry[] = [
    ...doc.pins.filter((p) => !replaced.has(key(p))),
    ...approved.map((p) => ({
      backend: p.backend,
      tool: p.tool,
      sha256: p.sha256,
      firstSeen: previous.get(key(p))?.firstSeen ?? p.seenAt,
      approvedBy: by,
      approvedAt: nowIso,
      definition: p.definition,
    })),
  ];
  return { doc: { version: 1, pins, pending: doc.pending.filter((p) => !replaced.has(key(p))) }, approved };
}

/** Pins of `after` that `before` did not have (same backend, tool and hash): approvals made outside. */
export function newPins(before: PinsDocument, after: PinsDocument): PinEntry[] {
  const known = new Set(before.pins.map((p) => `${p.backend}\u0000${p.tool}\u0000${p.sha256}`));
  return after.pins.filter((p) => !known.has(`${p.backend}\u0000${p.tool}\u0000${p.sha256}`));
}

/**
 * A line diff (`-` approved, `+` seen, two-space context) of two pretty-printed definitions, by a
 * longest common subsequence: definitions are a few dozen lines, so the quadratic table is small.
 */
export function lineDiff(before: string, after: string): string {
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) table[i][j] = a[i] === b[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(`  ${a[i++]}`);
      j++;
    } else if (i < a.length && (j === b.length || table[i + 1][j] >= table[i][j + 1])) out.push(`- ${a[i++]}`);
    else out.push(`+ ${b[j++]}`);
  }
  return out.join('\n');
}

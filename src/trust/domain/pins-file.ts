import type { ToolDefinition } from './pin';

/** An approved definition of one tool. */
export interface PinEntry {
  backend: string;
  tool: string;
  sha256: string;
  /** ISO time the router first saw this tool. */
  firstSeen: string;
  /** Who approved it: `approveNewBackends`, or the name given to the approval. */
  approvedBy: string;
  approvedAt: string;
  /** The approved definition, so a change can be shown as a diff. */
  definition: ToolDefinition;
}

/** A definition the router saw that has no approved pin (a new tool, or a changed one). */
export interface PendingEntry {
  backend: string;
  tool: string;
  sha256: string;
  reason: 'new' | 'changed';
  /** ISO time this definition was first seen. */
  seenAt: string;
  definition: ToolDefinition;
}

/** The pins file: pretty JSON, one entry per tool, sorted by backend then tool, so diffs read well. */
export interface PinsDocument {
  version: 1;
  pins: PinEntry[];
  pending: PendingEntry[];
}

export const EMPTY_PINS: PinsDocument = { version: 1, pins: [], pending: [] };

const SHA256 = /^[0-9a-f]{64}$/;

/** Parses a pins file; throws an Error naming the first bad entry (the text itself is not echoed). */
export function parsePins(text: string): PinsDocument {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error('the pins file is not valid JSON');
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('the pins file must be a JSON object with `pins`');
  const doc = raw as Record<string, unknown>;
  if (doc.version !== 1) throw new Error('the pins file has an unknown `version` (expected 1)');
  const pins = entries(doc.pins, 'pins');
  const pending = entries(doc.pending ?? [], 'pending');
  return { version: 1, pins: pins as unknown as PinEntry[], pending: pending as unknown as PendingEntry[] };
}

function entries(value: unknown, field: string): Record<string, unknown>[] {
  if (!Array.isArray(value)) throw new Error(`the pins file's \`${field}\` must be an array`);
  value.forEach((entry: unknown, i) => {
    const e = entry as Record<string, unknown> | null;
    const ok =
      e !== null &&
      typeof e === 'object' &&
      typeof e.backend === 'string' &&
      typeof e.tool === 'string' &&
      typeof e.sha256 === 'string' &&
      SHA256.test(e.sha256) &&
      e.definition !== null &&
      typeof e.definition === 'object';
    if (!ok) throw new Error(`the pins file's \`${field}[${i}]\` needs backend, tool, a 64-hex-digit sha256 and definition`);
  });
  return value as Record<string, unknown>[];
}

/** The file's text: entries sorted by backend then tool, two-space indented, newline-terminated. */
export function serializePins(doc: PinsDocument): string {
  const byKey = (a: { backend: string; tool: string }, b: { backend: string; tool: string }) =>
    a.backend === b.backend ? compare(a.tool, b.tool) : compare(a.backend, b.backend);
  const sorted: PinsDocument = { version: 1, pins: [...doc.pins].sort(byKey), pending: [...doc.pending].sort(byKey) };
  return JSON.stringify(sorted, null, 2) + '\n';
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

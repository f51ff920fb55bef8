import { z } from 'zod';

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * What the router needs of every entry: whose tool it is and its hash. The definition is only
 * shown (as a diff) and written back, never read field by field, so any JSON object stands.
 */
const entryKey = {
  backend: z.string(),
  tool: z.string(),
  sha256: z.string().regex(SHA256),
};
const definition = z.custom<object>((value) => value !== null && typeof value === 'object');
/**
 * A field the router writes but does not rely on. The file may be edited by hand (an approval
 * made without the CLI), so one that is missing or of another type leaves the entry valid; only
 * the odd value is dropped.
 */
const note = z.string().optional().catch(undefined);

/**
 * An approved definition of one tool. Loose, and in the order the router writes the fields, so a
 * field someone added by hand survives a rewrite.
 */
const PinEntrySchema = z.looseObject({
  ...entryKey,
  /** ISO time the router first saw this tool. */
  firstSeen: note,
  /** Who approved it: `approveNewBackends`, or the name given to the approval. */
  approvedBy: note,
  approvedAt: note,
  /** The approved definition, so a change can be shown as a diff. */
  definition,
});

/** A definition the router saw that has no approved pin (a new tool, or a changed one). */
const PendingEntrySchema = z.looseObject({
  ...entryKey,
  reason: z.enum(['new', 'changed']).optional().catch(undefined),
  /** ISO time this definition was first seen. */
  seenAt: note,
  definition,
});

const PinsFileSchema = z.object({
  version: z.literal(1),
  pins: z.array(PinEntrySchema),
  // A file from before any pending entry was recorded has none.
  pending: z
    .array(PendingEntrySchema)
    .nullish()
    .transform((entries) => entries ?? []),
});

export type PinEntry = z.infer<typeof PinEntrySchema>;
export type PendingEntry = z.infer<typeof PendingEntrySchema>;

/** The pins file: pretty JSON, one entry per tool, sorted by backend then tool, so diffs read well. */
export type PinsDocument = z.infer<typeof PinsFileSchema>;

export const EMPTY_PINS: PinsDocument = { version: 1, pins: [], pending: [] };

/** Parses a pins file; throws an Error naming the first bad entry (the text itself is not echoed). */
export function parsePins(text: string): PinsDocument {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error('the pins file is not valid JSON');
  }
  const parsed = PinsFileSchema.safeParse(raw);
  if (!parsed.success) throw new Error(problemOf(parsed.error.issues[0].path));
  return parsed.data;
}

/**
 * What is wrong, from where the first problem is: zod reports fields in the schema's order and
 * entries in the file's, so this is the first rule the file breaks.
 */
function problemOf(path: readonly PropertyKey[]): string {
  const [field, index] = path;
  if (field === undefined) return 'the pins file must be a JSON object with `pins`';
  if (field === 'version') return 'the pins file has an unknown `version` (expected 1)';
  if (typeof index === 'number') return `the pins file's \`${String(field)}[${index}]\` needs backend, tool, a 64-hex-digit sha256 and definition`;
  return `the pins file's \`${String(field)}\` must be an array`;
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

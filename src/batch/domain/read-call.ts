import { isJsonObject } from '../../common/json-object';

/** One read call as a caller states it (architecture §5 entry without `id`), once validated. */
export interface ReadCall {
  name: string;
  server?: string;
  arguments: Record<string, unknown>;
  cursor?: string;
}

/**
 * Length in characters (Unicode code points), as JSON Schema's `minLength`/`maxLength` count it,
 * not in UTF-16 units as `String.length` does: a bound the published schema states is the bound
 * the check applies, for "😀" too.
 */
export function characters(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i += 1) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count -= 1;
        i += 1;
      }
    }
  }
  return count;
}

export const MAX_NAME_CHARS = 200;
export const MAX_ARGUMENT_BYTES = 20_000;
export const MAX_ARGUMENT_DEPTH = 8;
export const MAX_CURSOR_CHARS = 4096;
/** Backend names are at most 63 characters (architecture §3), so an answer's `server` never is longer. */
export const MAX_SERVER_CHARS = 63;

const CALL_FIELDS = new Set(['name', 'server', 'arguments', 'cursor']);
const NO_FIELDS: ReadonlySet<string> = new Set();

export type ReadCallCheck = { ok: true; call: ReadCall } | { ok: false; message: string };

/**
 * Validates one call's fields against the bounds both entrypoints share (architecture §5). Messages
 * describe the rule broken and never contain a value, since arguments may hold secrets.
 * `extraFields` are fields the caller's entrypoint accepts and checks itself (a batch entry's `id`).
 */
export function checkReadCall(raw: unknown, extraFields: ReadonlySet<string> = NO_FIELDS): ReadCallCheck {
  if (!isJsonObject(raw)) {
    return { ok: false, message: 'a call must be an object with a `name`' };
  }
  const entry = raw;
  if (Object.keys(entry).some((k) => !CALL_FIELDS.has(k) && !extraFields.has(k))) {
    return { ok: false, message: `unknown field(s); allowed: ${[...CALL_FIELDS, ...extraFields].join(', ')}` };
  }
  const { name, server, cursor } = entry;
  if (typeof name !== 'string' || name.length < 1 || characters(name) > MAX_NAME_CHARS) {
    return { ok: false, message: `\`name\` must be a string of 1..${MAX_NAME_CHARS} characters` };
  }
  if (server !== undefined && (typeof server !== 'string' || server.length < 1 || characters(server) > MAX_SERVER_CHARS)) {
    return { ok: false, message: `\`server\` must be a string of 1..${MAX_SERVER_CHARS} characters` };
  }
  if (cursor !== undefined && (typeof cursor !== 'string' || cursor.length < 1 || characters(cursor) > MAX_CURSOR_CHARS)) {
    return { ok: false, message: `\`cursor\` must be a string of 1..${MAX_CURSOR_CHARS} characters` };
  }
  // Absent is no arguments; `null` is refused, as the published schema (`type: object`) refuses it.
  const args = entry.arguments === undefined ? {} : entry.arguments;
  if (!isJsonObject(args)) {
    return { ok: false, message: '`arguments` must be an object' };
  }
  const depth = nestingDepth(args, MAX_ARGUMENT_DEPTH + 1);
  if (depth > MAX_ARGUMENT_DEPTH) {
    return { ok: false, message: `\`arguments\` nests deeper than ${MAX_ARGUMENT_DEPTH} levels` };
  }
  if (Buffer.byteLength(JSON.stringify(args), 'utf8') > MAX_ARGUMENT_BYTES) {
    return { ok: false, message: `\`arguments\` is over ${MAX_ARGUMENT_BYTES} bytes as JSON` };
  }
  return {
    ok: true,
    call: {
      name,
      ...(typeof server === 'string' ? { server } : {}),
      arguments: args,
      ...(typeof cursor === 'string' ? { cursor } : {}),
    },
  };
}

/**
 * Depth of nested objects and arrays, the value itself being level 1. Stops counting at `cap`, so
 * a hostile 10,000-level document costs no more than `cap` levels of work.
 */
export function nestingDepth(value: unknown, cap: number): number {
  if (value === null || typeof value !== 'object') return 0;
  if (cap <= 1) return 1;
  let deepest = 0;
  for (const child of Array.isArray(value) ? value : Object.values(value)) {
    const d = nestingDepth(child, cap - 1);
    if (d > deepest) deepest = d;
    if (deepest >= cap - 1) break;
  }
  return 1 + deepest;
}

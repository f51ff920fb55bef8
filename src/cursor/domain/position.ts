import { Buffer } from 'node:buffer';

/**
 * Where the next page starts (architecture §6). Carried inside a signed cursor.
 * - `array`: element `index` of the array at `path` (keys from the structuredContent root).
 * - `string`: UTF-16 code unit `offset` of the string at `path` (never inside a surrogate pair).
 * - `content`: block `block` of `content`, from UTF-16 code unit `offset` of its text.
 * - `json`: code unit `offset` of `JSON.stringify(structuredContent)`, the last resort.
 */
export type Position =
  | { kind: 'array'; path: (string | number)[]; index: number }
  | { kind: 'string'; path: (string | number)[]; offset: number }
  | { kind: 'content'; block: number; offset: number }
  | { kind: 'json'; offset: number };

// Paths travel inside a cursor of at most 4 KiB (base64 of UTF-8), so arrays and strings nested
// deeper or under long keys are not paged by piece; the JSON fallback still reaches them.
export const MAX_PATH_DEPTH = 16;
export const MAX_PATH_BYTES = 1024;

/** UTF-8 bytes of a path as JSON, the form a cursor carries it in. */
export function pathBytes(path: readonly (string | number)[]): number {
  return Buffer.byteLength(JSON.stringify(path), 'utf8');
}

/**
 * True for a path a cursor may carry: 1 to {@link MAX_PATH_DEPTH} steps, each a key or an index,
 * at most {@link MAX_PATH_BYTES} bytes as JSON in UTF-8.
 */
export function isCursorPath(v: unknown): v is (string | number)[] {
  return (
    Array.isArray(v) &&
    v.length > 0 &&
    v.length <= MAX_PATH_DEPTH &&
    v.every((step) => typeof step === 'string' || (typeof step === 'number' && Number.isSafeInteger(step) && step >= 0)) &&
    pathBytes(v) <= MAX_PATH_BYTES
  );
}

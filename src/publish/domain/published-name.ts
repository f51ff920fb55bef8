import { createHash } from 'node:crypto';

/**
 * The longest tool name the router publishes. MCP allows 128 characters, but several model APIs
 * take tool names of at most 64 characters from `[A-Za-z0-9_-]`, and a client passes the
 * published names on as they are.
 */
export const MAX_PUBLISHED_NAME_CHARS = 64;

/** Between the backend's name and the tool's. */
const NAME_SEPARATOR = '__';

const SAFE_NAME = /^[A-Za-z0-9_-]+$/;
/** Hex digits of the SHA-256 of `<backend>__<tool>` that end a shortened name: 40 bits. */
const HASH_CHARS = 10;

/**
 * The name a backend tool is published under: `<backend>__<tool>` when that is at most
 * {@link MAX_PUBLISHED_NAME_CHARS} characters of `[A-Za-z0-9_-]`. Otherwise every other character
 * becomes `_`, the name is cut to leave room, and `_` and the first ten hex digits of the
 * SHA-256 of the full `<backend>__<tool>` end it: the same tool always gets the same name, and two
 * tools that differ anywhere get different ones.
 */
export function publishedName(backend: string, tool: string): string {
  const full = `${backend}${NAME_SEPARATOR}${tool}`;
  if (full.length <= MAX_PUBLISHED_NAME_CHARS && SAFE_NAME.test(full)) return full;
  const hash = createHash('sha256').update(full, 'utf8').digest('hex').slice(0, HASH_CHARS);
  const safe = Array.from(full, (ch) => (SAFE_NAME.test(ch) ? ch : '_')).join('');
  return `${safe.slice(0, MAX_PUBLISHED_NAME_CHARS - HASH_CHARS - 1)}_${hash}`;
}

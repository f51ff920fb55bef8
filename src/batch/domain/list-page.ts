/**
 * Pages of an aggregated listing (`resources/list`, `resources/templates/list`, `prompts/list`;
 * MCP spec "Pagination"). The cursor is opaque to clients: the offset of the next entry and how
 * many entries the listing had, so a cursor of a listing that has changed since is refused rather
 * than silently skipping or repeating entries.
 */

/** Entries per page: enough for most routers in one page, small enough for any client. */
export const LIST_PAGE_SIZE = 100;

/** Longest cursor a list request may carry. */
const MAX_LIST_CURSOR_CHARS = 200;

export type ListPage<T> = { ok: true; items: T[]; nextCursor?: string } | { ok: false; message: string };

/** The page of `items` that `cursor` names (the first without one). */
export function listPage<T>(items: readonly T[], cursor: unknown, pageSize: number = LIST_PAGE_SIZE): ListPage<T> {
  let offset = 0;
  if (cursor !== undefined) {
    const position = typeof cursor === 'string' && cursor.length <= MAX_LIST_CURSOR_CHARS ? readCursor(cursor) : undefined;
    if (position === undefined) return { ok: false, message: 'Invalid params: `cursor` is not a cursor this router issued' };
    if (position.total !== items.length || position.offset > items.length) {
      return { ok: false, message: 'Invalid params: the listing changed since this cursor was issued; list again from the start' };
    }
    offset = position.offset;
  }
  const end = Math.min(items.length, offset + pageSize);
  const page = items.slice(offset, end);
  return end < items.length ? { ok: true, items: page, nextCursor: writeCursor(end, items.length) } : { ok: true, items: page };
}

function writeCursor(offset: number, total: number): string {
  return Buffer.from(JSON.stringify({ o: offset, n: total }), 'utf8').toString('base64url');
}

function readCursor(cursor: string): { offset: number; total: number } | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (value === null || typeof value !== 'object') return undefined;
    const { o, n } = value as Record<string, unknown>;
    return Number.isSafeInteger(o) && Number.isSafeInteger(n) && (o as number) >= 0 ? { offset: o as number, total: n as number } : undefined;
  } catch {
    return undefined;
  }
}

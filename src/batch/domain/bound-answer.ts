import { boundResult, type Budget, type Position, type ToolResultLike } from '../../cursor/domain/bounding';
import type { Bounds, Envelope, ReadAnswer, Serialized } from '../batch.types';
import { utf8Bytes, type BatchItem, type ItemDraft } from './batch-response';

/** Room held for a cursor while a page is sized; the real cursor is then measured. */
const CURSOR_RESERVE_CHARS = 400;

/** A successful backend result (already de-duplicated) waiting to be cut to its answer's budget. */
export interface Page {
  base: ReadAnswer;
  result: ToolResultLike;
  from?: Position;
}

/** Issues a signed cursor for a position of this page's call; the TTL is what the answer reports. */
export interface CursorIssuer {
  issue(position: Position): string;
  ttlSeconds: number;
}

/**
 * Cuts a page so that `envelope(answer)` serializes within `budget.maxBytes` (DESIGN §6). The page
 * is sized with room for a cursor; then the answer with the real cursor is measured, and if it is
 * still over, the page is re-cut with the overshoot removed. Returns the answer with the JSON of its
 * envelope, which was measured and is reused as is; undefined when no page fits.
 */
export function boundAnswer(page: Page, budget: Budget, envelope: Envelope, cursors: CursorIssuer): Serialized<ReadAnswer> | undefined {
  const { base, result, from } = page;
  const reserve = 'x'.repeat(CURSOR_RESERVE_CHARS);
  // A candidate's answer serializes as this frame with the candidate's JSON in place of `{}`, so
  // each candidate costs one serialization of itself rather than of its whole envelope.
  const frameBytes = utf8Bytes(JSON.stringify(envelope(cutAnswer(base, {} as ToolResultLike, budget, 'bytes', reserve, 0)))) - 2;
  const sizeOf = (candidate: ToolResultLike): number => frameBytes + utf8Bytes(JSON.stringify(candidate));
  let maxBytes = budget.maxBytes;
  for (let attempt = 0; attempt < 4; attempt++) {
    const outcome = boundResult(result, { maxBytes, maxItems: budget.maxItems }, from, sizeOf);
    if (!outcome.truncated) {
      const whole = { ...base, result: outcome.result };
      const json = JSON.stringify(envelope(whole));
      if (utf8Bytes(json) <= budget.maxBytes) return { value: whole, json };
    }
    const cursor = outcome.next && outcome.resumable ? cursors.issue(outcome.next) : undefined;
    const reason = outcome.backendCursor ? 'backend_cursor' : (outcome.reason ?? 'bytes');
    const answer = cutAnswer(base, outcome.result, budget, reason, cursor, cursors.ttlSeconds);
    const json = JSON.stringify(envelope(answer));
    const overshoot = utf8Bytes(json) - budget.maxBytes;
    if (overshoot <= 0) return { value: answer, json };
    if (maxBytes - overshoot < 1) return undefined;
    maxBytes -= overshoot;
  }
  return undefined;
}

function cutAnswer(
  base: ReadAnswer,
  result: ToolResultLike,
  budget: Budget,
  reason: Bounds['reason'],
  cursor: string | undefined,
  ttlSeconds: number,
): ReadAnswer {
  const bounds: Bounds = { reason, item_limit: budget.maxItems, byte_limit: budget.maxBytes, resumable: cursor !== undefined };
  return {
    ...base,
    result,
    truncated: true,
    bounds,
    ...(cursor !== undefined ? { next_cursor: cursor, cursor_expires_in_seconds: ttlSeconds } : {}),
  };
}

/** The `response_too_large` answer for a page that cannot be cut to any budget. */
export type TooLarge = (page: Page) => ReadAnswer;

/**
 * One successful batch entry's draft (DESIGN §5): its page bounded to the entry's budget, and how
 * to cut it further or fetch the page again should the whole batch still be over its budget.
 */
export function draftItem(entry: { index: number; id: string }, page: Page, budget: Budget, cursors: CursorIssuer, tooLarge: TooLarge): ItemDraft {
  const envelope = (answer: ReadAnswer): BatchItem => ({ index: entry.index, id: entry.id, ...answer });
  const cut = (maxBytes: number): Serialized<BatchItem> => {
    const bounded = boundAnswer(page, { ...budget, maxBytes }, envelope, cursors);
    if (bounded) return { value: envelope(bounded.value), json: bounded.json };
    const item = envelope(tooLarge(page));
    return { value: item, json: JSON.stringify(item) };
  };
  const first = cut(budget.maxBytes);
  return {
    item: first.value,
    json: first.json,
    recut: cut,
    restartCursor: () => (page.from ? cursors.issue(page.from) : undefined),
  };
}

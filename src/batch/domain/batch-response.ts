import type { ReadAnswer, Serialized } from '../batch.types';

/** One entry of a batch answer (DESIGN §5). */
export interface BatchItem extends ReadAnswer {
  index: number;
  id: string;
  /** The result was dropped as a last resort to keep the whole answer within its budget. */
  result_truncated?: true;
}

/** The whole batch answer, in `structuredContent` and as JSON text in `content`. */
export interface BatchResponse {
  ok: boolean;
  results: BatchItem[];
  counts: { total: number; succeeded: number; failed: number };
  failed_ids: string[];
  failed_indexes: number[];
  truncated: boolean;
}

/** An item as dispatched, with what is needed to cut it further if the whole is still over. */
export interface ItemDraft {
  item: BatchItem;
  /** `JSON.stringify(item)`, when bounding already serialized it. */
  json?: string;
  /** Re-cuts this item's result so that the item serializes to at most `maxBytes`. */
  recut?: (maxBytes: number) => Serialized<BatchItem>;
  /** A cursor that fetches this item's page again, for when its result must be dropped. */
  restartCursor?: () => string | undefined;
}

/** The longest status, so the skeleton never underestimates an item (DESIGN §5 statuses). */
const LONGEST_STATUS = 'invalid_cursor';
/** Errors are first shortened to this, then emptied, when nothing else is left to cut. */
const SHORT_ERROR_CHARS = 100;

/**
 * The sizes of the batch answer with every result empty: `total`, the whole answer (ids, names,
 * statuses and the envelope with every entry counted as failed, the longest case), and `items`,
 * each entry's part of it, what its item costs before any result is added. DESIGN §5: each
 * entry's share is (budget − total) / entries. Each skeleton item is serialized once.
 */
export function skeletonSizes(entries: readonly { index: number; id: string; name: string }[], serverChars: number): { total: number; items: number[] } {
  const server = 'x'.repeat(serverChars);
  const items = entries.map((e) => skeletonItem(e, server));
  const jsons = items.map((item) => JSON.stringify(item));
  return { total: utf8Bytes(batchJson(assemble(items), jsons)), items: jsons.map(utf8Bytes) };
}

function skeletonItem(entry: { index: number; id: string; name: string }, server: string): BatchItem {
  return { index: entry.index, id: entry.id, tool: entry.name, server, status: LONGEST_STATUS, result: { content: [] } };
}

/** The final batch answer, its JSON, and each item's share of that JSON in UTF-8 bytes. */
export interface FinishedBatch {
  response: BatchResponse;
  /** `JSON.stringify(response)`: the text copy in `content`, and what the budget was measured on. */
  json: string;
  /** UTF-8 bytes of each item's JSON inside `json` (the audit's `bytes` of a batch entry). */
  itemBytes: number[];
}

/**
 * Puts the items together and makes the whole serialized answer fit `budget` bytes (DESIGN §5):
 * results are cut further from the end, then dropped (`result_truncated`, with a cursor that
 * fetches the page again), then long errors are shortened. `truncated` is true when anything
 * anywhere was cut. Items are never dropped and keep their order. The answer is measured as it
 * will be sent: its JSON is put together from the items' JSON, each item serialized once (and
 * again only when it is cut).
 */
export function finishBatch(drafts: readonly ItemDraft[], budget: number): FinishedBatch {
  const items = drafts.map((d) => d.item);
  const jsons = drafts.map((d) => d.json ?? JSON.stringify(d.item));
  let response = assemble(items);
  let json = batchJson(response, jsons);
  let over = utf8Bytes(json) - budget;
  const replace = (i: number, item: BatchItem, itemJson = JSON.stringify(item)) => {
    items[i] = item;
    jsons[i] = itemJson;
    response = assemble(items);
    json = batchJson(response, jsons);
    over = utf8Bytes(json) - budget;
  };
  for (let i = items.length - 1; i >= 0 && over > 0; i--) {
    const recut = drafts[i].recut;
    if (!recut || items[i].result === undefined) continue;
    const target = utf8Bytes(jsons[i]) - over;
    if (target <= 0) continue;
    const cut = recut(target);
    replace(i, cut.value, cut.json);
  }
  for (let i = items.length - 1; i >= 0 && over > 0; i--) {
    if (items[i].result === undefined) continue;
    replace(i, dropResult(items[i], drafts[i].restartCursor?.()));
  }
  for (const limit of [SHORT_ERROR_CHARS, 0]) {
    for (let i = items.length - 1; i >= 0 && over > 0; i--) {
      const error = items[i].error;
      if (error === undefined || error.length <= limit) continue;
      replace(i, { ...items[i], error: limit === 0 ? '' : `${error.slice(0, limit - 1)}…`, truncated: true });
    }
  }
  return { response, json, itemBytes: jsons.map(utf8Bytes) };
}

/**
 * `JSON.stringify(response)`, put together from the items' JSON already at hand: the envelope is
 * small, the items are nearly all of the bytes. The key order is `assemble`'s (`ok`, `results`,
 * then the rest), which the property spec pins.
 */
export function batchJson(response: BatchResponse, itemJsons: readonly string[]): string {
  const { ok, results: _items, ...rest } = response;
  return `{"ok":${ok},"results":[${itemJsons.join(',')}],${JSON.stringify(rest).slice(1)}`;
}

function dropResult(item: BatchItem, cursor: string | undefined): BatchItem {
  const { result: _dropped, next_cursor: _next, cursor_expires_in_seconds: _ttl, bounds, ...rest } = item;
  return {
    ...rest,
    truncated: true,
    result_truncated: true,
    ...(bounds ? { bounds: { ...bounds, resumable: cursor !== undefined } } : {}),
    ...(cursor !== undefined ? { next_cursor: cursor } : {}),
  };
}

/** Builds the envelope: `ok`, counts and failure lists always agree with the items' statuses. */
export function assemble(items: BatchItem[]): BatchResponse {
  const failed = items.filter((item) => item.status !== 'ok');
  return {
    ok: failed.length === 0,
    results: items,
    counts: { total: items.length, succeeded: items.length - failed.length, failed: failed.length },
    failed_ids: failed.map((item) => item.id),
    failed_indexes: failed.map((item) => item.index),
    truncated: items.some((item) => item.truncated === true),
  };
}

export function byteLength(value: unknown): number {
  return utf8Bytes(JSON.stringify(value));
}

export function utf8Bytes(json: string): number {
  return Buffer.byteLength(json, 'utf8');
}

import type { RouterErrorCode } from '../../common/router-error';
import type { Budget, ContentBlock } from './bounding';
import { boundAnswer, type AnswerShape, type CursorIssuer, type Page } from './bound-answer';
import { escapedBytes, modelBlocks, RESULT_FRAME_BYTES, resultJson, textBlock, utf8Bytes } from './model-content';
import type { ReadAnswer, Serialized } from './read-answer';

/** One entry of a batch answer (architecture §5). */
export interface BatchItem extends ReadAnswer {
  index: number;
  id: string;
  /** The result was dropped as a last resort to keep the whole answer within its budget. */
  result_truncated?: true;
}

/** The whole batch answer, in `structuredContent`; `content` holds its summary and each entry's blocks. */
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
  /** A failed item's code, finer than its status (`backend_timeout` where the status says `error`), for its header. */
  code?: RouterErrorCode;
  /** `JSON.stringify(item)`, when bounding already serialized it. */
  json?: string;
  /** The item's blocks in `content` (its header, then its result's), as JSON list members, when at hand. */
  blocksJson?: string;
  /** Re-cuts this item's result so that its footprint ({@link itemFootprint}) is at most `maxBytes`. */
  recut?: (maxBytes: number) => Serialized<BatchItem> & { blocksJson?: string; code?: RouterErrorCode };
  /** A cursor that fetches this item's page again, for when its result must be dropped. */
  restartCursor?: () => string | undefined;
}

/** The `response_too_large` answer for a page that cannot be cut to `budget` in `shape`. */
export type TooLarge = (page: Page, budget: Budget, shape: AnswerShape) => ReadAnswer;

/**
 * One successful batch entry's draft (architecture §5): its page bounded to the entry's budget, and how
 * to cut it further or fetch the page again should the whole batch still be over its budget.
 */
export function draftItem(entry: { index: number; id: string }, page: Page, budget: Budget, cursors: CursorIssuer, tooLarge: TooLarge): ItemDraft {
  const shape = itemShape(entry);
  const envelope = (answer: ReadAnswer): BatchItem => ({ index: entry.index, id: entry.id, ...answer });
  const cut = (maxBytes: number): Serialized<BatchItem> & { blocksJson: string; code?: RouterErrorCode } => {
    const bounded = boundAnswer(page, { ...budget, maxBytes }, shape, cursors);
    if (bounded) {
      const item = envelope(bounded.value);
      return { value: item, json: bounded.json, blocksJson: [entryHeaderJson(item), ...bounded.blockJsons].join(',') };
    }
    const item = envelope(tooLarge(page, { ...budget, maxBytes }, shape));
    return { value: item, json: JSON.stringify(item), blocksJson: entryHeaderJson(item, 'response_too_large'), code: 'response_too_large' };
  };
  const first = cut(budget.maxBytes);
  return {
    item: first.value,
    code: first.code,
    json: first.json,
    blocksJson: first.blocksJson,
    recut: cut,
    restartCursor: () => (page.from ? cursors.issue(page.from) : undefined),
  };
}

/** The longest status, so the skeleton never underestimates an item (architecture §5 statuses). */
const LONGEST_STATUS = 'invalid_cursor';
/** Errors are first shortened to this, then emptied, when nothing else is left to cut. */
const SHORT_ERROR_CHARS = 100;

/**
 * The sizes of the whole batch result with every result empty: `total`, the whole result (ids,
 * names, statuses and the envelope with every entry counted as failed, the longest case, in
 * `structuredContent` and in `content`), and `items`, each entry's footprint in it
 * ({@link itemFootprint}), what its item costs before any result is added. architecture §5: each
 * entry's share is (budget − total) / entries. Each skeleton item is serialized once.
 */
export function skeletonSizes(entries: readonly { index: number; id: string; name: string }[], serverChars: number): { total: number; items: number[] } {
  const server = 'x'.repeat(serverChars);
  const items = entries.map((e) => skeletonItem(e, server));
  const jsons = items.map((item) => JSON.stringify(item));
  return {
    total: wireBytes(
      assemble(items),
      jsons,
      items.map((item) => entryBlocksJson(item)),
    ),
    items: items.map((item, i) => itemFootprint(item, jsons[i])),
  };
}

function skeletonItem(entry: { index: number; id: string; name: string }, server: string): BatchItem {
  return { index: entry.index, id: entry.id, tool: entry.name, server, status: LONGEST_STATUS, result: { content: [] } };
}

/** The final batch answer, its JSON, the whole result as sent, and each item's share of it. */
export interface FinishedBatch {
  response: BatchResponse;
  /** `JSON.stringify(response)`: the structured content. */
  json: string;
  /** The whole `tools/call` result as JSON text (`isError: false`), what the budget was measured on. */
  wire: string;
  /** UTF-8 bytes of each item's footprint in `wire` (the audit's `bytes` of a batch entry). */
  itemBytes: number[];
}

/**
 * Puts the items together and makes the whole serialized result (structured content and content)
 * fit `budget` bytes (architecture §5):
 * results are cut further from the end, then dropped (`result_truncated`, with a cursor that
 * fetches the page again), then long errors are shortened. `truncated` is true when anything
 * anywhere was cut. Items are never dropped and keep their order. The answer is measured as it
 * will be sent: its JSON is put together from the items' JSON, each item serialized once (and
 * again only when it is cut).
 */
export function finishBatch(drafts: readonly ItemDraft[], budget: number): FinishedBatch {
  const items = drafts.map((d) => d.item);
  const jsons = drafts.map((d) => d.json ?? JSON.stringify(d.item));
  const codes = drafts.map((d) => d.code);
  const blockJsons = drafts.map((d, i) => d.blocksJson ?? entryBlocksJson(d.item, codes[i]));
  let response = assemble(items);
  let over = wireBytes(response, jsons, blockJsons) - budget;
  const replace = (i: number, item: BatchItem, itemJson = JSON.stringify(item), itemBlocks = entryBlocksJson(item, codes[i])) => {
    items[i] = item;
    jsons[i] = itemJson;
    blockJsons[i] = itemBlocks;
    response = assemble(items);
    over = wireBytes(response, jsons, blockJsons) - budget;
  };
  for (let i = items.length - 1; i >= 0 && over > 0; i--) {
    const recut = drafts[i].recut;
    if (!recut || items[i].result === undefined) continue;
    const target = footprint(i) - over;
    if (target <= 0) continue;
    const cut = recut(target);
    codes[i] = cut.code;
    replace(i, cut.value, cut.json, cut.blocksJson);
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
  const json = batchJson(response, jsons);
  return {
    response,
    json,
    wire: resultJson([JSON.stringify(summaryBlock(response)), ...blockJsons], json, false),
    itemBytes: items.map((_, i) => footprint(i)),
  };

  function footprint(i: number): number {
    return footprintOf(items[i], jsons[i], blockJsons[i]);
  }
}

/**
 * What a model reads first of a batch (MCP "content"): the answer without any result, as
 * compact JSON: `ok`, counts, failures, and each entry's status, error and cursor.
 */
export function summaryBlock(response: BatchResponse): ContentBlock {
  const { results, ...rest } = response;
  return textBlock(JSON.stringify({ ...rest, results: results.map(headOf) }));
}

/** What an entry's header shows of it. */
type HeaderFields = Pick<BatchItem, 'index' | 'id' | 'status' | 'error'>;

/**
 * The line that opens an entry's blocks in `content`: its index, id and status and, for a failed
 * entry, its code (when finer than the status) and its message on one line, so a model reading
 * the entries in order learns why one failed where it reads it, not only in the summary above:
 * `── entry 1, id "missing": error (backend_failed): backend error: ENOENT … ──`.
 */
export function entryHeader(item: HeaderFields, code?: RouterErrorCode): ContentBlock {
  const status = code !== undefined && code !== item.status ? `${item.status} (${code})` : item.status;
  const message = item.error !== undefined && item.error !== '' ? `: ${oneLine(item.error)}` : '';
  return textBlock(`── entry ${item.index}, id ${JSON.stringify(item.id)}: ${status}${message} ──`);
}

/** The JSON of an entry's header block. */
export function entryHeaderJson(item: HeaderFields, code?: RouterErrorCode): string {
  return JSON.stringify(entryHeader(item, code));
}

/** A message on one line: each line break, with the blanks around it, becomes one space. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ');
}

/** An entry's blocks in `content` (its header, then its result's blocks), as JSON list members. */
function entryBlocksJson(item: BatchItem, code?: RouterErrorCode): string {
  return [entryHeader(item, code), ...modelBlocks(item.result, item.server)].map((b) => JSON.stringify(b)).join(',');
}

/** A batch item's fields but its result, as its summary lists it. */
function headOf(item: BatchItem): Omit<BatchItem, 'result'> {
  const { result: _result, ...head } = item;
  return head;
}

/**
 * How a batch entry goes on the wire (for bounding it): its item in `structuredContent`, its
 * line in the summary block, its header block, then its result's blocks, each after a comma.
 */
export function itemShape(entry: { index: number; id: string }): AnswerShape {
  return {
    envelope: (answer) => ({ index: entry.index, id: entry.id, ...answer }),
    contentBytes: (answer) => contentBytesOf({ index: entry.index, id: entry.id, ...answer }),
  };
}

function contentBytesOf(item: BatchItem): number {
  return footprintOf(item, '', entryHeaderJson(item));
}

/**
 * An item's bytes in the whole result, from its JSON and its blocks' (`blocksJson`: its header,
 * then its result's blocks, comma-separated): its JSON and comma in `results`, its summary line
 * and comma (escaped inside the summary's text), and its blocks with the comma before them.
 */
function footprintOf(item: BatchItem, itemJson: string, blocksJson: string): number {
  return utf8Bytes(itemJson) + 1 + escapedBytes(JSON.stringify(headOf(item))) + 1 + 1 + utf8Bytes(blocksJson);
}

/**
 * UTF-8 bytes one item takes in the whole result: its JSON, and what it adds to `content`. The
 * pieces of the whole add up to at most the whole plus one comma per list.
 */
export function itemFootprint(item: BatchItem, itemJson: string): number {
  return footprintOf(item, itemJson, entryBlocksJson(item));
}

/** UTF-8 bytes of the whole result put together from its parts (see {@link resultJson}). */
function wireBytes(response: BatchResponse, itemJsons: readonly string[], blockJsons: readonly string[]): number {
  let bytes = RESULT_FRAME_BYTES + utf8Bytes(batchJson(response, itemJsons)) + utf8Bytes(JSON.stringify(summaryBlock(response)));
  for (const b of blockJsons) bytes += 1 + utf8Bytes(b);
  return bytes;
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

export { utf8Bytes };

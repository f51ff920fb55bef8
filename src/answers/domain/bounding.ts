import { assertNever } from '../../common/assert-never';
import { isJsonObject } from '../../common/json-object';
import { canonicalJson } from '../../cursor/domain/canonical';
import type { Position } from '../../cursor/domain/position';
import { isCutPoint, jsonBytes, largestFitting, minJsonBytes, plausibleCount, prefixAxis, unitAxis } from './page-search';
import {
  arrayAt,
  BACKEND_CURSOR_FIELDS,
  elementOffset,
  findCuttable,
  pickArray,
  pickString,
  replaceAt,
  samePath,
  serializesLarger,
  stringAt,
  stringOffset,
  type StructuredPath,
} from './structured-paths';

/** One MCP content block (MCP spec, "Tool Result": text, image, audio, resource…). */
export interface ContentBlock {
  type: string;
  text?: string;
  [k: string]: unknown;
}

/** The parts of an MCP `CallToolResult` that bounding reads; other fields ride along untouched. */
export interface ToolResultLike {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [k: string]: unknown;
}

/** Limits for one answer: serialized bytes, and array elements / content blocks in the page. */
export interface Budget {
  maxBytes: number;
  maxItems: number;
}

/** Which limit cut the answer. */
export type BoundReason = 'bytes' | 'items';

/**
 * One bounded page. `truncated` says this answer was cut (a final page after resuming is not);
 * `next` is where the rest starts and is present only when the router can issue a cursor for it,
 * which `resumable` repeats; `backendCursor` says the backend paginates by itself (architecture §6).
 */
export interface BoundOutcome {
  result: ToolResultLike;
  truncated: boolean;
  reason?: BoundReason;
  next?: Position;
  resumable: boolean;
  backendCursor: boolean;
}

/**
 * Drops text blocks that only repeat `structuredContent` (architecture §6): a text equal to its JSON
 * (compact, or any formatting with the same canonical value), or equal to its only field when that
 * field is a string. Returns a new result when something was dropped; never mutates the input.
 */
export function dedupeResult(r: ToolResultLike): ToolResultLike {
  const sc = r.structuredContent;
  if (!isJsonObject(sc) || !Array.isArray(r.content)) return r;
  const compact = JSON.stringify(sc);
  const keys = Object.keys(sc);
  const onlyString = keys.length === 1 && typeof sc[keys[0]] === 'string' ? sc[keys[0]] : undefined;
  let canonical: string | undefined;
  const repeats = (text: string): boolean => {
    if (text === compact || text === onlyString) return true;
    const trimmed = text.trim();
    // Only an object's JSON can equal structuredContent; skip parsing everything else.
    if (!trimmed.startsWith('{')) return false;
    const parsed = parseJson(trimmed);
    if (parsed === undefined) return false;
    canonical ??= canonicalJson(sc);
    return canonicalJson(parsed) === canonical;
  };
  const content = r.content.filter((b) => !(isTextBlock(b) && repeats(b.text)));
  return content.length === r.content.length ? r : { ...r, content };
}

/**
 * True when structuredContent carries the backend's own pagination token: a non-empty top-level
 * string `nextCursor`, `next_cursor`, `cursor` or `next`. An empty string is no token (MCP spec,
 * "Pagination": the end of the pages is an absent cursor, not a blank one).
 */
export function hasBackendCursor(r: ToolResultLike): boolean {
  const sc = r.structuredContent;
  if (!isJsonObject(sc)) return false;
  return BACKEND_CURSOR_FIELDS.some((f) => Object.hasOwn(sc, f) && typeof sc[f] === 'string' && sc[f] !== '');
}

/**
 * Cuts a tool result to a budget, resumably (architecture §6). `measure(candidate)` must return the
 * serialized byte size of the whole answer that would carry `candidate`: it grows with the
 * candidate and is at least the UTF-8 size of `JSON.stringify(candidate)` (which lets cheap lower
 * bounds rule out sizes without serializing them; every page returned is still measured).
 *
 * - `from` undefined: the result whole when it fits; else the first page. What is cut: an array
 *   of structuredContent over the item limit; else of its largest array and its largest string
 *   (paths by object keys; sizes as JSON, strings escaped), the one larger as JSON, the other
 *   when not even one element or code unit of it fits; else, with neither, the `content` blocks
 *   and then the text of a single block (a string is cut instead only when structuredContent
 *   alone is over the budget); as a last resort structuredContent as JSON text.
 * - `from` given: the page that starts there; a remainder that is empty ends the pages.
 * - Every page fits `budget` (bytes as measured, items as elements/blocks), holds at least one
 *   element or code unit when anything fits at all, and has a `next` exactly when something
 *   remains, so following `next` always terminates. When not even that fits, the smallest page
 *   (no structuredContent, no content) comes back truncated, without `next`.
 * - Callers apply {@link dedupeResult} first, the same way on every page.
 */
export function boundResult(r: ToolResultLike, budget: Budget, from: Position | undefined, measure: (candidate: ToolResultLike) => number): BoundOutcome {
  const ctx: Ctx = {
    r,
    maxBytes: budget.maxBytes,
    // A page always has room for one piece, or paging could never make progress.
    maxItems: Math.max(1, Math.floor(budget.maxItems)),
    measure,
    backendCursor: hasBackendCursor(r),
  };
  if (from === undefined) return firstPage(ctx);
  switch (from.kind) {
    case 'array':
      return arrayPage(ctx, from.path, from.index, undefined);
    case 'string':
      return stringPage(ctx, from.path, from.offset, undefined);
    case 'content':
      return contentPage(ctx, from.block, from.offset, undefined);
    case 'json':
      return jsonPage(ctx, from.offset, undefined);
    default:
      return assertNever(from);
  }
}

interface Ctx {
  r: ToolResultLike;
  maxBytes: number;
  maxItems: number;
  measure: (candidate: ToolResultLike) => number;
  backendCursor: boolean;
}

// `cut` below: set on the first page to why the whole result did not fit (so that page is
// truncated whatever remains); undefined when resuming, where only a remainder makes a cut.

function firstPage(ctx: Ctx): BoundOutcome {
  const { r } = ctx;
  const sc = r.structuredContent;
  const { arrays, strings } = isJsonObject(sc) ? findCuttable(sc) : { arrays: [], strings: [] };
  const items = arrays.reduce((n, a) => Math.max(n, a.array.length), contentOf(r).length);
  // The lower bound spares serializing a result of megabytes just to learn it is too big.
  if (items <= ctx.maxItems && minJsonBytes(r, ctx.maxBytes) <= ctx.maxBytes && fits(ctx, r)) return outcome(ctx, r, false);
  const cut: BoundReason = items > ctx.maxItems ? 'items' : 'bytes';
  const array = arrays.length > 0 ? pickArray(arrays, ctx.maxItems) : undefined;
  const text = strings.length > 0 ? pickString(strings) : undefined;
  if (array !== undefined) {
    // Only the array over the item limit can fix it: the other candidate would carry it whole.
    if (text === undefined || array.array.length > ctx.maxItems) return arrayPage(ctx, array.path, 0, cut);
    const byArray = (orElse?: () => BoundOutcome) => arrayPage(ctx, array.path, 0, cut, orElse);
    const byString = (orElse?: () => BoundOutcome) => stringPage(ctx, text.path, 0, cut, orElse);
    // Costs O(size of the string) even beside an array of megabytes; a tie goes to the string.
    return serializesLarger(array.array, text.text) ? byArray(() => byString()) : byString(() => byArray());
  }
  if (text !== undefined) {
    // A string is worth cutting only when structuredContent alone is over the budget; else the
    // content blocks are what is too big, and structuredContent rides along on their pages.
    const bare: ToolResultLike = { ...r, content: [] };
    if (minJsonBytes(bare, ctx.maxBytes) > ctx.maxBytes || !fits(ctx, bare)) return stringPage(ctx, text.path, 0, cut);
  }
  return contentPage(ctx, 0, 0, cut);
}

/** `orElse`, on a first page only: what to try when not even one element fits, before JSON text. */
function arrayPage(ctx: Ctx, path: StructuredPath, index: number, cut: BoundReason | undefined, orElse?: () => BoundOutcome): BoundOutcome {
  const { r } = ctx;
  const sc = r.structuredContent;
  const array = isJsonObject(sc) ? arrayAt(sc, path) : undefined;
  // A position that no longer resolves means the data changed shape: nothing left to resume.
  if (!isJsonObject(sc) || array === undefined) return outcome(ctx, { ...withoutStructured(r), content: [] }, false);
  // The structured part is the truth (MCP spec, "Structured Content"); while it is paged the
  // content blocks, mostly its JSON again for older clients, are left out of every page.
  const page = (k: number): ToolResultLike => ({
    ...r,
    content: [],
    structuredContent: replaceAt(sc, path, 0, array.slice(index, index + k)),
  });
  if (index >= array.length) return outcome(ctx, page(0), false);
  const remaining = array.length - index;
  const fallback = (): BoundOutcome => (orElse ? orElse() : jsonPage(ctx, cut ? 0 : elementOffset(sc, path, array, index), cut));
  const others = longestOtherArray(sc, path);
  // Only one array is paged per answer; when another one alone breaks the item limit, or not even
  // one element fits, the fallback (JSON text, unless `orElse`) is the only page that can fit.
  if (others > ctx.maxItems) return fallback();
  const max = plausibleCount(Math.min(ctx.maxItems, remaining), ctx.maxBytes, (i) => array[index + i]);
  const axis = prefixAxis((i) => jsonBytes(array[index + i]) + 1);
  const k = largestFitting(ctx.maxBytes, max, (n) => ctx.measure(page(n)), axis);
  if (k === 0) return fallback();
  const end = index + k;
  const next: Position | undefined = end < array.length ? { kind: 'array', path: [...path], index: end } : undefined;
  return outcome(ctx, page(k), cut !== undefined || next !== undefined, pageReason(ctx, k, next, cut), next);
}

/**
 * A long string of structuredContent, paged by UTF-16 code units: each page is structuredContent
 * with that string replaced by its next slice, everything else kept, so the slices concatenate to
 * the string (a file's text stays text, where the JSON fallback would hand out escaped fragments).
 * `orElse` as for {@link arrayPage}.
 */
function stringPage(ctx: Ctx, path: StructuredPath, offset: number, cut: BoundReason | undefined, orElse?: () => BoundOutcome): BoundOutcome {
  const { r } = ctx;
  const sc = r.structuredContent;
  const text = isJsonObject(sc) ? stringAt(sc, path) : undefined;
  // Not a string any more: the data changed shape, nothing left to resume.
  if (!isJsonObject(sc) || text === undefined) return outcome(ctx, { ...withoutStructured(r), content: [] }, false);
  // As for arrays, the content blocks (mostly this very text again) leave every page.
  const page = (n: number): ToolResultLike => ({
    ...r,
    content: [],
    structuredContent: replaceAt(sc, path, 0, text.slice(offset, offset + n)),
  });
  if (offset >= text.length) return outcome(ctx, page(0), false);
  const fallback = (): BoundOutcome => (orElse ? orElse() : jsonPage(ctx, cut ? 0 : stringOffset(sc, path, text, offset), cut));
  if (longestOtherArray(sc, path) > ctx.maxItems) return fallback();
  // Every code unit costs at least one byte, which caps the probes at the budget.
  const units = Math.min(text.length - offset, ctx.maxBytes);
  const n = largestFitting(
    ctx.maxBytes,
    units,
    (m) => ctx.measure(page(m)),
    unitAxis,
    (m) => isCutPoint(text, offset + m),
  );
  if (n === 0) return fallback();
  const next: Position | undefined = offset + n < text.length ? { kind: 'string', path: [...path], offset: offset + n } : undefined;
  return outcome(ctx, page(n), cut !== undefined || next !== undefined, next ? 'bytes' : cut, next);
}

/** The most elements of an array of structuredContent other than the one at `path`. */
function longestOtherArray(sc: Record<string, unknown>, path: StructuredPath): number {
  return findCuttable(sc).arrays.reduce((n, a) => (samePath(a.path, path) ? n : Math.max(n, a.array.length)), 0);
}

function contentPage(ctx: Ctx, block: number, offset: number, cut: BoundReason | undefined): BoundOutcome {
  const { r } = ctx;
  const blocks = contentOf(r);
  let b = block;
  let o = offset;
  if (o > 0) {
    const at = blocks[b];
    // An offset at or past the end of its text (or on a block without text) starts the next block.
    if (!(at !== undefined && isTextBlock(at) && o < at.text.length)) {
      b += 1;
      o = 0;
    }
  }
  const head = blocks[b];
  if (head === undefined) {
    if (cut === undefined) return outcome(ctx, { ...r, content: [] }, false);
    // First page with no content left to cut: what is too big is structuredContent or top level.
    return isJsonObject(r.structuredContent) ? jsonPage(ctx, 0, cut) : smallestPage(ctx);
  }
  const first: ContentBlock = o > 0 && isTextBlock(head) ? { ...head, text: head.text.slice(o) } : head;
  // structuredContent without arrays rides along on every page here: it has nothing to page.
  const page = (k: number): ToolResultLike => ({ ...r, content: k === 0 ? [] : [first, ...blocks.slice(b + 1, b + k)] });
  if (cut !== undefined && isJsonObject(r.structuredContent)) {
    const bare = page(0);
    if (minJsonBytes(bare, ctx.maxBytes) > ctx.maxBytes || !fits(ctx, bare)) return jsonPage(ctx, 0, cut);
  }
  const piece = (i: number): ContentBlock => (i === 0 ? first : blocks[b + i]);
  const count = plausibleCount(Math.min(ctx.maxItems, blocks.length - b), ctx.maxBytes, piece);
  const k = largestFitting(
    ctx.maxBytes,
    count,
    (n) => ctx.measure(page(n)),
    prefixAxis((i) => jsonBytes(piece(i)) + 1),
  );
  if (k > 0) {
    const next: Position | undefined = b + k < blocks.length ? { kind: 'content', block: b + k, offset: 0 } : undefined;
    return outcome(ctx, page(k), cut !== undefined || next !== undefined, pageReason(ctx, k, next, cut), next);
  }
  const after: Position | undefined = b + 1 < blocks.length ? { kind: 'content', block: b + 1, offset: 0 } : undefined;
  if (!isTextBlock(head)) {
    // A non-text block (an image, say) cannot be cut; an explicit placeholder keeps the pages
    // moving and tells the reader what is missing, where silence would look like a gap.
    const placeholder: ToolResultLike = { ...r, content: [{ type: 'text', text: omittedNotice(head.type) }] };
    return fits(ctx, placeholder) ? outcome(ctx, placeholder, true, 'bytes', after) : smallestPage(ctx);
  }
  const text = head.text;
  const textPage = (n: number): ToolResultLike => ({ ...r, content: [{ ...head, text: text.slice(o, o + n) }] });
  // Every code unit costs at least one byte, which caps the probes at the budget.
  const units = Math.min(text.length - o, ctx.maxBytes);
  const n = largestFitting(
    ctx.maxBytes,
    units,
    (m) => ctx.measure(textPage(m)),
    unitAxis,
    (m) => isCutPoint(text, o + m),
  );
  if (n === 0) return smallestPage(ctx);
  const next: Position | undefined = o + n < text.length ? { kind: 'content', block: b, offset: o + n } : after;
  return outcome(ctx, textPage(n), cut !== undefined || next !== undefined, 'bytes', next);
}

function jsonPage(ctx: Ctx, offset: number, cut: BoundReason | undefined): BoundOutcome {
  const rest = withoutStructured(ctx.r);
  const sc = ctx.r.structuredContent;
  const text = isJsonObject(sc) ? JSON.stringify(sc) : '';
  const page = (n: number): ToolResultLike => ({
    ...rest,
    content: n === 0 ? [] : [{ type: 'text', text: text.slice(offset, offset + n) }],
  });
  if (offset >= text.length) return outcome(ctx, page(0), cut !== undefined, cut);
  const max = Math.min(text.length - offset, ctx.maxBytes);
  const n = largestFitting(
    ctx.maxBytes,
    max,
    (m) => ctx.measure(page(m)),
    unitAxis,
    (m) => isCutPoint(text, offset + m),
  );
  if (n === 0) return smallestPage(ctx);
  const next: Position | undefined = offset + n < text.length ? { kind: 'json', offset: offset + n } : undefined;
  return outcome(ctx, page(n), cut !== undefined || next !== undefined, next ? 'bytes' : cut, next);
}

function smallestPage(ctx: Ctx): BoundOutcome {
  return outcome(ctx, { ...withoutStructured(ctx.r), content: [] }, true, 'bytes');
}

function outcome(ctx: Ctx, result: ToolResultLike, truncated: boolean, reason?: BoundReason, next?: Position): BoundOutcome {
  // With a backend token in the answer the router issues no cursor of its own (architecture §6).
  const carry = next !== undefined && !ctx.backendCursor;
  return {
    result,
    truncated,
    ...(truncated ? { reason: reason ?? 'bytes' } : {}),
    ...(carry ? { next } : {}),
    resumable: carry,
    backendCursor: ctx.backendCursor,
  };
}

function pageReason(ctx: Ctx, k: number, next: Position | undefined, cut: BoundReason | undefined): BoundReason | undefined {
  if (next === undefined) return cut;
  return k >= ctx.maxItems ? 'items' : 'bytes';
}

function fits(ctx: Ctx, candidate: ToolResultLike): boolean {
  return ctx.measure(candidate) <= ctx.maxBytes;
}

function omittedNotice(type: unknown): string {
  const name = typeof type === 'string' && /^[A-Za-z0-9_-]{1,40}$/.test(type) ? type : 'non-text';
  return `[left out: a content block of type ${name}, larger alone than the response byte budget]`;
}

function withoutStructured(r: ToolResultLike): ToolResultLike {
  const copy = { ...r };
  delete copy.structuredContent;
  return copy;
}

function contentOf(r: ToolResultLike): ContentBlock[] {
  return Array.isArray(r.content) ? r.content : [];
}

function parseJson(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch {
    // Not JSON means "not a copy of structuredContent": a classification, not a lost error.
    return undefined;
  }
}

function isTextBlock(b: ContentBlock): b is ContentBlock & { text: string } {
  return b.type === 'text' && typeof b.text === 'string';
}

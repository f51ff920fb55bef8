import { RouterError } from '../../common/router-error';
import type { Position } from '../../cursor/domain/position';
import { boundResult, type Budget, type ToolResultLike } from './bounding';
import { decodedBytes, mediaBlocks, MEDIA_DATA, type MediaBlock } from './media';
import { escapedBytes, modelBlocks, utf8Bytes } from './model-content';
import { failureAnswer, type Bounds, type Envelope, type ReadAnswer, type Serialized } from './read-answer';

/** Room held for a cursor while a page is sized; the real cursor is then measured. */
const CURSOR_RESERVE_CHARS = 400;

/** A successful backend result (already de-duplicated) waiting to be cut to its answer's budget. */
export interface Page {
  /** The answer's fields but `result` (and a cut's fields, which bounding adds). */
  base: ReadAnswer;
  result: ToolResultLike;
  from?: Position;
}

/**
 * How an answer goes on the wire, so bounding measures all of what is sent (architecture §6): its
 * envelope (in `structuredContent`), and what it adds to `content` besides the result's blocks.
 */
export interface AnswerShape {
  /** The structured form; adds its fields before the answer's (see Envelope). */
  envelope: Envelope;
  /**
   * UTF-8 bytes the answer adds to the whole result beside its envelope's JSON and the blocks of
   * its result (`blocksBytes(modelBlocks(...))`): its envelope block, headers, framing. Given the
   * answer with or without `result` (the same either way). Fields a cut adds appear there as
   * their JSON inside one JSON string (escaped once), no more. `envelopeJson`, when given, is
   * `JSON.stringify(envelope(answer))` of an answer without `result`, for a shape that can reuse it.
   */
  contentBytes(answer: ReadAnswer, envelopeJson?: string): number;
}

/**
 * A bounded answer: its envelope's JSON, and the JSON of each of its result's model blocks
 * (`modelBlocks`), as measured, for the wire to reuse.
 */
export interface Bounded extends Serialized<ReadAnswer> {
  blockJsons: readonly string[];
  /** The JSON of the answer's envelope without `result` (the fields before it, then a cut's), when at hand. */
  headJson?: string;
}

/** Issues a signed cursor for a position of this page's call; the TTL is what the answer reports. */
export interface CursorIssuer {
  issue(position: Position): string;
  ttlSeconds: number;
  /** Said beside a cursor as `resume`: how to fetch the next part, where the call cannot take the cursor itself. */
  resumeHint?: string;
}

/**
 * Cuts a page so that the whole answer, `envelope(answer)` as JSON plus what it adds to `content`
 * (`shape.contentBytes` and the result's model blocks), fits `budget.maxBytes` (architecture §6). The page
 * is sized with room for a cursor; then the answer with the real cursor is measured, and if it is
 * still over, the page is re-cut with the overshoot removed. Returns the answer with the JSON of its
 * envelope, which was measured and is reused as is; undefined when no page fits. Without `cursors`
 * (a write's result, which is never called again) a cut is not resumable and carries no cursor.
 */
export function boundAnswer(page: Page, budget: Budget, shape: AnswerShape, cursors: CursorIssuer | undefined): Bounded | undefined {
  // A media block is sent whole or not at all: never paged through as base64 text.
  if (oversizeMedia(page, budget, shape) !== undefined) return undefined;
  const { base, result, from } = page;
  const { envelope } = shape;
  // An answer is `base`, then `result`, then a cut's fields, and an envelope adds its fields before
  // the answer's (Envelope): so its JSON is the envelope of `base`, left open, the result's JSON and
  // a tail. Sizing a candidate serializes only the candidate, and the answer reuses the JSON of the
  // candidate measured last rather than serializing the result again.
  const head = JSON.stringify(envelope(base));
  const open = `${head === '{}' ? '{' : `${head.slice(0, -1)},`}"result":`;
  // Sized with a reserved cursor of CURSOR_RESERVE_CHARS ASCII characters: an empty one plus them.
  // The content side holds the same fields but the result once more (the envelope block): sized
  // with room for the widest cut's fields.
  const frameBytes =
    utf8Bytes(open) +
    reservedTailBytes(budget, cursors?.resumeHint) +
    CURSOR_RESERVE_CHARS +
    shape.contentBytes(base, head) +
    CUT_CONTENT_RESERVE_BYTES +
    resumeContentBytes(cursors?.resumeHint);
  let measured: { candidate: ToolResultLike; json: string; blockJsons: string[]; size: number } | undefined;
  const sizeOf = (candidate: ToolResultLike): number => {
    const json = JSON.stringify(candidate);
    const blockJsons = blockJsonsOf(candidate, base.server);
    const size = frameBytes + utf8Bytes(json) + listBytes(blockJsons);
    measured = { candidate, json, blockJsons, size };
    return size;
  };
  const wholeBytes = (answer: Bounded): number => utf8Bytes(answer.json) + shape.contentBytes(answer.value) + listBytes(answer.blockJsons);
  const serialize = (answer: ReadAnswer, tail: string): Bounded => {
    const reuse = measured !== undefined && measured.candidate === answer.result ? measured : undefined;
    const resultJson = reuse ? reuse.json : JSON.stringify(answer.result);
    return {
      value: answer,
      json: `${open}${resultJson}${tail}`,
      blockJsons: reuse ? reuse.blockJsons : blockJsonsOf(answer.result, base.server),
      // The envelope's fields, then a cut's: the same text as `open`'s, closed by the tail.
      headJson: tail === '}' ? head : head === '{}' ? `{${tail.slice(1)}` : `${head.slice(0, -1)}${tail}`,
    };
  };
  let maxBytes = budget.maxBytes;
  for (let attempt = 0; attempt < 4; attempt++) {
    const outcome = boundResult(result, { maxBytes, maxItems: budget.maxItems }, from, sizeOf);
    if (!outcome.truncated) {
      const whole = serialize({ ...base, result: outcome.result }, '}');
      // Its measure held a reserved cut it does not carry, so a measure within the budget is enough.
      if (measured?.candidate === outcome.result && measured.size <= budget.maxBytes) return whole;
      if (wholeBytes(whole) <= budget.maxBytes) return whole;
    }
    const cursor = cursors && outcome.next && outcome.resumable ? cursors.issue(outcome.next) : undefined;
    const reason = outcome.backendCursor ? 'backend_cursor' : (outcome.reason ?? 'bytes');
    const fields = cutFields(budget, reason, cursor, cursors?.ttlSeconds ?? 0, cursors?.resumeHint);
    const cut = serialize({ ...base, result: outcome.result, ...fields }, tailOf(fields));
    const overshoot = wholeBytes(cut) - budget.maxBytes;
    if (overshoot <= 0) return cut;
    if (maxBytes - overshoot < 1) return undefined;
    maxBytes -= overshoot;
  }
  return undefined;
}

function blockJsonsOf(result: ToolResultLike | undefined, server: string | null): string[] {
  return modelBlocks(result, server).map((block) => JSON.stringify(block));
}

/** UTF-8 bytes of JSON list members: each one's JSON and the comma before it. */
function listBytes(jsons: readonly string[]): number {
  let total = 0;
  for (const json of jsons) total += 1 + utf8Bytes(json);
  return total;
}

/** What a cut adds to an answer after its `result` (architecture §6). */
type CutFields = Pick<ReadAnswer, 'truncated' | 'bounds' | 'next_cursor' | 'cursor_expires_in_seconds' | 'resume'>;

function cutFields(budget: Budget, reason: Bounds['reason'], cursor: string | undefined, ttlSeconds: number, resumeHint: string | undefined): CutFields {
  const bounds: Bounds = { reason, item_limit: budget.maxItems, byte_limit: budget.maxBytes, resumable: cursor !== undefined };
  if (cursor === undefined) return { truncated: true, bounds };
  const fields: CutFields = { truncated: true, bounds, next_cursor: cursor, cursor_expires_in_seconds: ttlSeconds };
  return resumeHint === undefined ? fields : { ...fields, resume: resumeHint };
}

/**
 * UTF-8 bytes of `tailOf(cutFields(budget, 'bytes', '', 0, resumeHint))`, the reserved cut's fields
 * a page is sized with, worked out without building them: every answer is sized so, and all but
 * the two limits and the hint is the same text each time.
 */
export function reservedTailBytes(budget: Budget, resumeHint: string | undefined): number {
  const hint = resumeHint === undefined ? 0 : utf8Bytes(`,"resume":${JSON.stringify(resumeHint)}`);
  return RESERVED_TAIL_FIXED_BYTES + JSON.stringify(budget.maxItems).length + JSON.stringify(budget.maxBytes).length + hint;
}

/** What a `resume` hint adds to the content side, escaped once as the cut's other fields (CUT_CONTENT_RESERVE_BYTES). */
function resumeContentBytes(resumeHint: string | undefined): number {
  return resumeHint === undefined ? 0 : escapedBytes(`,"resume":${JSON.stringify(resumeHint)}`);
}

/** The JSON text that follows an answer's result when these fields come after it, closing brace included. */
function tailOf(fields: CutFields): string {
  return `,${JSON.stringify(fields).slice(1)}`;
}

/** The reserved cut's fields with both limits 0 (one character each), less those two characters. */
const RESERVED_TAIL_FIXED_BYTES = utf8Bytes(tailOf(cutFields({ maxBytes: 0, maxItems: 0 }, 'bytes', '', 0, undefined))) - 2;

/**
 * The most a cut's fields add to the content side (see AnswerShape.contentBytes): the widest cut,
 * with a reserved cursor, escaped once. Computed once: sizing every answer's frame with a
 * serialized 400-character cursor cost several times the rest of a small answer.
 */
const CUT_CONTENT_RESERVE_BYTES = escapedBytes(
  tailOf({
    truncated: true,
    bounds: { reason: 'backend_cursor', item_limit: Number.MAX_SAFE_INTEGER, byte_limit: Number.MAX_SAFE_INTEGER, resumable: false },
    next_cursor: 'x'.repeat(CURSOR_RESERVE_CHARS),
    cursor_expires_in_seconds: Number.MAX_SAFE_INTEGER,
  }),
);

/**
 * The largest media block of the page's result that does not fit the budget even alone, in an
 * answer that holds nothing else (its envelope with the block's reference, and the block).
 */
export function oversizeMedia(page: Page, budget: Budget, shape: AnswerShape): MediaBlock | undefined {
  let worst: MediaBlock | undefined;
  for (const media of mediaBlocks(page.result)) {
    const alone = { ...page.base, result: { content: [media.block] } };
    const bytes = utf8Bytes(JSON.stringify(shape.envelope(alone))) + shape.contentBytes(alone) + listBytes(blockJsonsOf(alone.result, page.base.server));
    if (bytes > budget.maxBytes && (worst === undefined || media.base64Bytes > worst.base64Bytes)) worst = media;
  }
  return worst;
}

/** What the budget of a single call is called in a message. */
export const SINGLE_BUDGET_NAME = 'the response budget';
/** What a batch entry's budget is called in a message. */
export const BATCH_SHARE_NAME = "this entry's share of the batch response budget";
/** What a batch caller can do about a media block over its entry's share. */
export const BATCH_SHARE_ADVICE = 'call it alone with invoke_read_tool, whose budget is the whole single-call budget';

/**
 * The `response_too_large` answer for a page that cannot be cut to its budget: for a media block
 * larger than the budget, a message naming the block, its size and the budget (`budgetName`);
 * never a cursor through its base64.
 */
export function tooLargeAnswer(page: Page, budget: Budget, shape: AnswerShape, budgetName: string, advice?: string): ReadAnswer {
  const media = oversizeMedia(page, budget, shape);
  const message =
    media === undefined
      ? 'the result cannot be cut to fit the response budget'
      : `the result holds ${describeMedia(media)} of ${bytesText(media.base64Bytes)} as base64 (${decodedBytes(mediaData(media)).toLocaleString('en-US')} decoded), ` +
        `larger than ${budgetName} of ${bytesText(budget.maxBytes)}; a media block is sent whole or not at all${advice !== undefined ? `: ${advice}` : ''}`;
  return failureAnswer(page.base.tool, page.base.server, new RouterError('response_too_large', message));
}

function describeMedia(media: MediaBlock): string {
  const kind = media.type === 'resource' ? 'an embedded binary resource' : media.type === 'audio' ? 'an audio block' : 'an image block';
  return media.mimeType !== undefined ? `${kind} (${media.mimeType.slice(0, 100)})` : kind;
}

function mediaData(media: MediaBlock): string {
  const data = (media.block as { [MEDIA_DATA]?: string })[MEDIA_DATA];
  return data ?? '';
}

function bytesText(n: number): string {
  return `${n.toLocaleString('en-US')} bytes`;
}

import type { RouterErrorCode } from '../../common/router-error';
import { boundAnswer, SINGLE_BUDGET_NAME, tooLargeAnswer, type AnswerShape, type Bounded, type CursorIssuer, type Page } from './bound-answer';
import type { Budget } from './bounding';
import { RESULT_FRAME_BYTES, resultJson, textBlock, utf8Bytes } from './model-content';
import type { ReadAnswer, Serialized } from './read-answer';

/**
 * The single call's structured answer (architecture §1): the batch item's fields without index and id,
 * plus `ok`. A failure carries the router's error shape, `error: {code, message}`, where `code`
 * names the failure more finely than `status` (a timeout and a rate-limit wait are both `error`).
 */
export type SingleAnswer = ({ ok: true } & ReadAnswer) | ({ ok: false } & Omit<ReadAnswer, 'error'> & { error?: { code: RouterErrorCode; message: string } });

/**
 * The envelope of a single call that has a result, as bounding measures it: `ok` before the
 * answer's fields. Its `error`, if any, is still the answer's text ({@link singleFailure} makes it
 * `{code, message}`), so it is not yet a {@link SingleAnswer}.
 */
function singleEnvelope(answer: ReadAnswer): { ok: boolean } & ReadAnswer {
  return { ok: answer.status === 'ok', ...answer };
}

/**
 * How the single call goes on the wire: its envelope in `structuredContent`; in `content`, a text
 * block with the envelope's fields but `result` (compact JSON), then the result's blocks.
 */
export const SINGLE_SHAPE: AnswerShape = {
  envelope: singleEnvelope,
  // An answer without `result`: its envelope's JSON is the head block's text as it is.
  contentBytes: (answer, envelopeJson) =>
    RESULT_FRAME_BYTES + utf8Bytes(envelopeJson !== undefined && answer.result === undefined ? headBlockJson(envelopeJson) : headBlockJsonOf(answer)),
};

/** The head block's JSON: the envelope's fields but `result`, as compact JSON in a text block. */
function headBlockJsonOf(answer: ReadAnswer): string {
  const { result: _result, ...head } = singleEnvelope(answer);
  return headBlockJson(JSON.stringify(head));
}

/** `JSON.stringify(textBlock(text))`, with the text escaped once. */
function headBlockJson(text: string): string {
  return `{"type":"text","text":${JSON.stringify(text)}}`;
}

/** A failed single call's answer: `error` as `{code, message}`. */
export function singleFailure(answer: ReadAnswer, code: RouterErrorCode): Serialized<SingleAnswer> {
  const { error, ...rest } = answer;
  const value: SingleAnswer = { ok: false, ...rest, error: { code, message: error ?? '' } };
  return { value, json: JSON.stringify(value) };
}

/**
 * The whole `tools/call` result of a single call that has a result, from its bounded answer: the
 * JSON of its envelope and of its blocks, as bounding measured them, reused as is.
 */
export function singleWire(answer: Bounded): string {
  const head = answer.headJson !== undefined ? headBlockJson(answer.headJson) : headBlockJsonOf(answer.value);
  return resultJson([head, ...answer.blockJsons], answer.json, false);
}

/**
 * The whole result of a single call that produced no result: refused, or its backend failed.
 * `isError: true` (MCP spec, "Error Handling": a tool's own failure is a result with `isError`),
 * and the one text block is the whole answer, which says which.
 */
export function failureWire(answer: Serialized<SingleAnswer>): string {
  return resultJson([JSON.stringify(textBlock(answer.json))], answer.json, true);
}

/** A single call's answer, and the whole `tools/call` result that carries it, serialized once. */
export interface SingleResult {
  answer: ReadAnswer;
  wire: string;
}

/**
 * The single call's answer from its page, cut to the single-call budget (architecture §6), with
 * cursors from `cursors` where the rest can be fetched (none for a write, which is never called
 * again to resume it); `response_too_large` when no page fits.
 */
export function boundSingle(page: Page, budget: Budget, cursors: CursorIssuer | undefined): SingleResult {
  const bounded = boundAnswer(page, budget, SINGLE_SHAPE, cursors);
  return bounded
    ? { answer: bounded.value, wire: singleWire(bounded) }
    : failedSingle(tooLargeAnswer(page, budget, SINGLE_SHAPE, SINGLE_BUDGET_NAME), 'response_too_large');
}

/** The single call's answer when it produced no result (refused, or its backend failed). */
export function failedSingle(answer: ReadAnswer, code: RouterErrorCode): SingleResult {
  return { answer, wire: failureWire(singleFailure(answer, code)) };
}

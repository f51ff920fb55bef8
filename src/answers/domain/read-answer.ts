import type { CallStatus } from '../../common/call-status';
import { statusOf, type RouterError } from '../../common/router-error';
import type { BoundReason, ToolResultLike } from './bounding';

/** architecture §5: an error message is at most 500 characters. */
export const MAX_ERROR_CHARS = 500;

/** Why and how far a result was cut (architecture §6). */
export interface Bounds {
  reason: BoundReason | 'backend_cursor';
  item_limit: number;
  byte_limit: number;
  resumable: boolean;
}

/**
 * The answer to one read call: the fields a batch item and the single call share (architecture §5).
 * Never both `result` and `error`.
 */
export interface ReadAnswer {
  tool: string;
  server: string | null;
  status: CallStatus;
  result?: ToolResultLike;
  error?: string;
  truncated?: true;
  bounds?: Bounds;
  next_cursor?: string;
  cursor_expires_in_seconds?: number;
  /** Beside `next_cursor` when the call was made through a tool that cannot take it: how to fetch the next part. */
  resume?: string;
}

/**
 * How one call's answer will be wrapped on the wire, so bounding measures the real thing. It adds
 * its fields before the answer's, never after, and keeps the answer's fields as they are: bounding
 * puts the JSON together as the wrapped answer's fields followed by the result's own JSON.
 */
export type Envelope = (answer: ReadAnswer) => unknown;

/**
 * A value with its JSON, serialized once: bounding measures it, and the MCP edge sends it as the
 * structured content (BENCHMARKS item 7).
 */
export interface Serialized<T> {
  value: T;
  json: string;
}

/**
 * The answer of a call that failed: the status its error's code maps to, and the message, cut to
 * {@link MAX_ERROR_CHARS}: the router's words, then the backend's own message when it gave one.
 * This answer goes to the caller who sent the arguments, the one place a backend's message goes.
 */
export function failureAnswer(tool: string, server: string | null, err: RouterError): ReadAnswer {
  const message = err.backendMessage !== undefined ? `${err.message}: ${err.backendMessage}` : err.message;
  return { tool, server, status: statusOf(err.code), error: message.slice(0, MAX_ERROR_CHARS) };
}

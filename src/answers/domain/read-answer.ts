import type { CallStatus } from '../../common/call-status';
import type { BoundReason, ToolResultLike } from './bounding';

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

import type { Principal } from '../common/principal';
import type { RequestId, RequestParams } from './domain/jsonrpc';

/**
 * What the controller sends back: an HTTP status, headers and, unless 202, a JSON body: a value
 * to serialize, or a string that is JSON text already (serialized once; Fastify sends a string as
 * is).
 */
export interface HttpAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Instead of a body: a stream of JSON-RPC messages sent as server-sent events (a subscription). */
  events?: EventStream;
}

/**
 * Messages sent one by one until the stream ends: `open` starts it with a way to send and to end,
 * and returns what to call when the client goes away.
 */
export interface EventStream {
  open(send: (message: object) => void, end: () => void): () => void;
}

/** One JSON-RPC request, admitted and past the era checks of its headers and `_meta`. */
export interface EraRequest {
  id: RequestId;
  method: string;
  params: RequestParams;
  principal: Principal;
}

/**
 * One protocol era's methods and result shapes (docs/protocol-eras.md): `LegacyEra` for clients
 * that open with `initialize` (2025-06-18, 2025-11-25), `ModernEra` for 2026-07-28 clients whose
 * every request carries its version in `_meta`. Both publish the same surface; `McpService`
 * picks one per request and keeps one path.
 */
export interface EraDialect {
  answer(request: EraRequest): Promise<HttpAnswer>;
}

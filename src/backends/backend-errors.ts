import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { RouterError } from '../common/router-error';
import { backendFailure } from './domain/backend-failures';

/**
 * JSON-RPC error code the stdio transport answers a call with when its response line was over the
 * size cap. In the implementation-defined server-error range (-32000..-32099) and unused by the SDK.
 */
export const RESPONSE_TOO_LARGE_CODE = -32099;

/**
 * Turns whatever a backend call rejected with into a RouterError. Messages name the backend and
 * the kind of failure only: a backend's own error text can echo the arguments (architecture §5), so it is
 * never copied into the message.
 */
export function toRouterError(err: unknown, backend: string, timeoutMs: number): RouterError {
  if (err instanceof RouterError) return err;
  if (err instanceof McpError) {
    switch (err.code) {
      case ErrorCode.RequestTimeout:
        return backendFailure.timedOut(backend, timeoutMs);
      case RESPONSE_TOO_LARGE_CODE:
        return backendFailure.tooLarge(backend);
      case ErrorCode.ConnectionClosed:
        return new RouterError('backend_failed', `connection to backend ${backend} closed during the call`);
      default:
        return backendFailure.jsonRpcError(backend, err.code);
    }
  }
  if (isResponseTooLarge(err)) return backendFailure.tooLarge(backend);
  // Protocol.request rejects with this plain Error when the transport is already gone.
  if (err instanceof Error && err.message === 'Not connected') {
    return backendFailure.notConnected(backend);
  }
  // zod 4 (SDK 1.32) names its error $ZodError; zod 3 named it ZodError.
  if (err instanceof Error && (err.name === 'ZodError' || err.name === '$ZodError')) {
    return backendFailure.malformed(backend);
  }
  return new RouterError('backend_failed', `call to backend ${backend} failed`);
}

/**
 * What an HTTP or SSE transport error says about the connection. Streamable HTTP has no "closed"
 * event of its own: its errors are the only sign that a server went away.
 * - `lost`: the server is unreachable or no longer knows our session; reconnect.
 * - `suspect`: a response stream broke; a crashed server and a proxy cutting an idle stream look
 *   the same, so the caller probes with a ping before tearing down calls in flight.
 * - `benign`: one bad message on a working connection.
 */
export type TransportErrorKind = 'lost' | 'suspect' | 'benign';

export function classifyTransportError(err: unknown): TransportErrorKind {
  if (err instanceof SseError) return 'lost'; // legacy SSE: the session lives and dies with its stream
  if (err instanceof StreamableHTTPError) return err.code === 404 ? 'lost' : 'benign'; // spec: 404 = session gone
  if (!(err instanceof Error)) return 'benign';
  // fetch rejects with TypeError('fetch failed') when the server refuses or drops the connection.
  if (err instanceof TypeError) return 'lost';
  if (/^(Failed to reconnect|Maximum reconnection attempts)/.test(err.message)) return 'lost';
  if (err.message.startsWith('SSE stream disconnected')) return 'suspect';
  return 'benign';
}

/** True for the HTTP response cap's error, however the SDK or fetch wrapped it. */
function isResponseTooLarge(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e.name === 'ResponseTooLargeError') return true;
  }
  return false;
}

/** A short, single-line description of a connect failure for logs and `states()`. */
export function describeFailure(err: unknown): string {
  const text = err instanceof Error ? `${err.message}${causeOf(err)}` : String(err);
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

function causeOf(err: Error): string {
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof Error ? ` (${cause.message})` : '';
}

import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { RouterError } from '../../common/router-error';
import type { BackendStatus } from '../backends.types';

/**
 * The failures a backend call can end in, each with its one message. Messages name the backend
 * and the kind of failure only: a backend's own text may echo the arguments (architecture §5).
 */
export const backendFailure = {
  timedOut: (backend: string, timeoutMs: number) => new RouterError('backend_timeout', `backend ${backend} did not answer within ${timeoutMs} ms`),
  tooLarge: (backend: string) => new RouterError('response_too_large', `backend ${backend} sent a response over the size limit`),
  jsonRpcError: (backend: string, code: number) => new RouterError('backend_failed', `backend ${backend} answered with JSON-RPC error ${code}`),
  malformed: (backend: string) => new RouterError('backend_failed', `backend ${backend} sent a malformed result`),
  /** With its state when known: `connecting` (not up yet since boot) or `down` (lost, retrying). */
  notConnected: (backend: string, status?: BackendStatus) =>
    new RouterError('backend_unavailable', `backend ${backend} is not connected${status === undefined ? '' : ` (${status}); try again shortly`}`),
  /** 2026-07-28 multi round-trip (docs/backend-eras.md): the router declares no client capabilities. */
  inputRequested: (backend: string, methods: readonly string[]) =>
    new RouterError(
      'backend_failed',
      `backend ${backend} asked for input the router cannot give (${methods.join(', ')}); the router declares no elicitation, sampling or roots support`,
    ),
  roundsExhausted: (backend: string, rounds: number) => new RouterError('backend_failed', `backend ${backend} still asked for a retry after ${rounds} rounds`),
  timedOutBetweenRounds: (backend: string, timeoutMs: number, rounds: number) =>
    new RouterError(
      'backend_timeout',
      `backend ${backend} did not complete within ${timeoutMs} ms (it asked for a retry ${rounds} ${rounds === 1 ? 'time' : 'times'})`,
    ),
} as const;

/**
 * JSON-RPC error code a channel answers a request with when its answer was over the size cap. In
 * the implementation-defined server-error range (-32000..-32099) and unused by the SDK.
 */
export const RESPONSE_TOO_LARGE_CODE = -32099;

/** An answer over the size cap (`MAX_RESPONSE_BYTES`): fails that call only. */
export class ResponseTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`backend response over ${limitBytes} bytes`);
    this.name = 'ResponseTooLargeError';
  }
}

/**
 * A failure that says the backend or its session is gone, not just that one call failed: the
 * channel reports it to its supervisor, which reconnects.
 */
export class ConnectionLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConnectionLostError';
  }
}

/** A connection that broke during a call: the backend may have crashed, or one socket dropped. */
export class ConnectionBrokeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConnectionBrokeError';
  }
}

/**
 * Turns whatever a backend call rejected with into a RouterError. Messages name the backend and
 * the kind of failure only: a backend's own error text can echo the arguments (architecture §5), so it is
 * never copied into the message.
 */
export function toRouterError(err: unknown, backend: string, timeoutMs: number): RouterError {
  if (err instanceof RouterError) return err;
  if (err instanceof McpError) {
    if (err.code === RESPONSE_TOO_LARGE_CODE) return backendFailure.tooLarge(backend);
    switch (mcpErrorCode(err)) {
      case ErrorCode.RequestTimeout:
        return backendFailure.timedOut(backend, timeoutMs);
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
 * The code of an McpError as the SDK's `ErrorCode`: the SDK types it as a plain number, which a
 * numeric enum admits whatever its value, so any code a backend sent comes through unchanged.
 */
export function mcpErrorCode(err: McpError): ErrorCode {
  return err.code;
}

/** True for the response cap's error, however the SDK or fetch wrapped it. */
function isResponseTooLarge(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e.name === 'ResponseTooLargeError') return true;
  }
  return false;
}

/** A short, single-line description of a failure for logs and `states()`. */
export function describeFailure(err: unknown): string {
  const text = err instanceof Error ? `${err.message}${causeOf(err)}` : String(err);
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

function causeOf(err: Error): string {
  return err.cause instanceof Error ? ` (${err.cause.message})` : '';
}

/** The `code` of a Node.js system error (`ECONNREFUSED`, `ESRCH`, …), if it has one. */
export function systemErrorCode(err: unknown): string | undefined {
  if (!(err instanceof Error) || !('code' in err)) return undefined;
  return typeof err.code === 'string' ? err.code : undefined;
}

import { AsyncLocalStorage } from 'node:async_hooks';

/** What the router knows about the HTTP request a piece of work belongs to. */
export interface RequestContext {
  /** Correlation id: the caller's `x-request-id` when it is sane, else generated. */
  readonly requestId: string;
  /** The W3C `traceparent` header as sent (the audit log keeps it only when well-formed). */
  readonly traceparent?: string;
  /**
   * The MCP protocol version a `tools/call` was served in, once the endpoint has read its era
   * (absent for a 2025 client that sent no `MCP-Protocol-Version`); the audit line carries it.
   */
  protocolVersion?: string;
  /**
   * The span the work runs in, with tracing on (src/tracing keeps it here, so the one store the
   * request already has carries it, and no second store is copied into every promise). A span is
   * entered by running its work in a copy of this context, never by changing this field.
   */
  readonly span?: object;
}

/** The header a correlation id arrives in and is echoed back in. */
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * The request each async continuation belongs to. One process-wide store is the point of
 * AsyncLocalStorage (it follows awaits, not objects), so this is the one module-level instance;
 * the logger reads it; the request hook creates it, and only the endpoint adds the
 * protocol version to it (`noteProtocolVersion`).
 */
export const requestContext = new AsyncLocalStorage<RequestContext>();

/**
 * Runs `fn` outside any request's context: timers and connections it starts (a reconnect, a
 * refresh) serve the process, not the call that happened to trigger them, and must not log that
 * call's `requestId` seconds later.
 */
export function outsideRequest<T>(fn: () => T): T {
  return requestContext.exit(fn);
}

/** The correlation id of the request being served, if any. */
export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

/** The `traceparent` the client sent with the request being served, if any. */
export function currentTraceparent(): string | undefined {
  return requestContext.getStore()?.traceparent;
}

/**
 * Notes the protocol version of the request being served, for what it sets off (the audit line).
 * Called before the request's first span: a span's work runs in a copy of the context taken when
 * the span started.
 */
export function noteProtocolVersion(version: string): void {
  const context = requestContext.getStore();
  if (context !== undefined) context.protocolVersion = version;
}

/**
 * A caller-supplied id is kept only when it is a short token (letters, digits, `._:-`, at most
 * 128 characters): it lands in every log line of the request, so nothing that could forge a log
 * field, carry a secret-sized payload or break a log query gets through.
 */
const SANE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** The incoming header's value when it is usable as a correlation id. */
export function saneRequestId(header: string | string[] | undefined): string | undefined {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : undefined;
}

/**
 * The context of an HTTP request from its head: the caller's sane `x-request-id` or a new id, and
 * its `traceparent` when it is one short header (a longer one is no W3C trace context).
 */
export function contextOfRequest(headers: Record<string, string | string[] | undefined>, newId: () => string): RequestContext {
  const traceparent = headers.traceparent;
  const requestId = saneRequestId(headers[REQUEST_ID_HEADER]) ?? newId();
  return typeof traceparent === 'string' && traceparent.length <= 64 ? { requestId, traceparent } : { requestId };
}

import type { CallTrace } from '../backends.types';

/**
 * A request's `_meta` with the call's trace context added (`traceparent`, `tracestate`, unprefixed:
 * spec 2026-07-28 "_meta", OpenTelemetry MCP semantic conventions "Context propagation"), or the
 * `_meta` unchanged when the call is not traced. Never mutates `meta`.
 */
export function withTraceMeta<M extends object>(meta: M | undefined, trace: CallTrace | undefined): M | Record<string, string> | undefined {
  return withFields(meta, traceFields(trace));
}

/**
 * `_meta` with `traceFields`' fields added (a new object, or the fields themselves when there is
 * no `_meta`), or `meta` as it is when there are none. Never mutates `meta`.
 */
export function withFields<M extends object>(meta: M | undefined, fields: Record<string, string> | undefined): M | Record<string, string> | undefined {
  if (fields === undefined) return meta;
  return meta === undefined ? fields : { ...meta, ...fields };
}

/**
 * The trace context as `_meta` fields or as HTTP headers (W3C Trace Context, "traceparent
 * Header"; the names are the same), or none for a call that is not traced. A new object each time.
 */
export function traceFields(trace: CallTrace | undefined): Record<string, string> | undefined {
  const traceparent = trace?.context.traceparent;
  if (traceparent === undefined) return undefined;
  const tracestate = trace?.context.tracestate;
  // Written whole, in one of two shapes (a spread of it stays on V8's fast path).
  return tracestate !== undefined && tracestate !== '' ? { traceparent, tracestate } : { traceparent };
}

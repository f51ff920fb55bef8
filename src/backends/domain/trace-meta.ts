import type { CallTrace } from '../backends.types';

/**
 * A request's `_meta` with the call's trace context added (`traceparent`, `tracestate`, unprefixed:
 * spec 2026-07-28 "_meta", OpenTelemetry MCP semantic conventions "Context propagation"), or the
 * `_meta` unchanged when the call is not traced. Never mutates `meta`.
 */
export function withTraceMeta<M extends object>(meta: M | undefined, trace: CallTrace | undefined): M | Record<string, string> | undefined {
  const fields = traceFields(trace);
  return fields === undefined ? meta : { ...meta, ...fields };
}

/**
 * The trace context as `_meta` fields or as HTTP headers (W3C Trace Context, "traceparent
 * Header"; the names are the same), or none for a call that is not traced.
 */
export function traceFields(trace: CallTrace | undefined): Record<string, string> | undefined {
  if (trace?.context.traceparent === undefined) return undefined;
  const { traceparent, tracestate } = trace.context;
  const fields: Record<string, string> = {};
  if (traceparent !== undefined) fields.traceparent = traceparent;
  if (tracestate !== undefined && tracestate !== '') fields.tracestate = tracestate;
  return fields;
}

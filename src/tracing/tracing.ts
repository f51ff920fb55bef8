/**
 * Attribute values a span carries: names, counts and closed codes, never arguments or results. An
 * `undefined` value is an attribute the span does not get (builders make one shape either way).
 */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** W3C Trace Context as it travels: in HTTP headers, or in an MCP request's `params._meta`. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/** What a span is, decided before it starts (the shapes are in `domain/spans.ts`). */
export interface SpanStart {
  name: string;
  kind: 'server' | 'client' | 'internal';
  attributes: SpanAttributes;
  /** Attributes many spans have alike, built once and set before `attributes`. */
  shared?: SpanAttributes;
  /**
   * A remote parent: the span continues the caller's trace (or starts a new one when the carrier
   * holds no valid `traceparent`) instead of the span that is current. Only the first span of a
   * request has one: under a span the sampler dropped, no span starts and `start` is not called.
   */
  parent?: TraceCarrier;
  /** Another context the span belongs to (the HTTP request's, when `params._meta` named the parent). */
  link?: TraceCarrier;
  /**
   * No span of the router's starts inside it (a backend call): the work runs in its parent's
   * context, which saves entering a context per call.
   */
  leaf?: boolean;
}

/**
 * What a span records of how its work came out, read as the work settles and before the span
 * ends (so the code awaiting the work needs no step of its own for it).
 */
export interface SpanOutcome<T> {
  /** Records what the result says (attributes, a failure). */
  result?(span: TraceSpan, value: T): void;
  /** The `error.type` of a rejection; without it, the error's class name. */
  errorType?(err: unknown): string;
}

/** One span while it runs. */
export interface TraceSpan {
  setAttributes(attributes: SpanAttributes): void;
  addEvent(name: string, attributes?: SpanAttributes): void;
  /** Ends as failed: `error.type` (a closed code) and status ERROR, with no message that could echo arguments. */
  fail(errorType: string): void;
  /** This span as the parent of the next hop: `traceparent` and, when there is one, `tracestate`. */
  carrier(): TraceCarrier;
}

/** The ids a log line written inside a span carries. */
export interface TraceIds {
  traceId: string;
  spanId: string;
}

/**
 * The router's spans (architecture §8.1). `NO_TRACING` when no OTLP endpoint is configured: then
 * the SDK is never loaded, span shapes are never built (`start` is a function for that reason),
 * and each traced step costs one call.
 */
export interface Tracing {
  readonly enabled: boolean;
  /**
   * Runs `fn` inside a new span, a child of the current one (or of `start().parent`); ends it when
   * `fn` settles. The span is the current one of the work inside it (its children, its log lines)
   * within the request being served, where the router starts every span. `outcome` records how
   * the work came out. Under a span the sampler dropped, `fn` runs in that span and none starts.
   */
  inSpan<T>(start: () => SpanStart, fn: (span: TraceSpan) => Promise<T>, outcome?: SpanOutcome<T>): Promise<T>;
  /** The span being run, or one that records nothing. */
  current(): TraceSpan;
  /** Ids of the span being run, for log lines; undefined outside any span. */
  currentIds(): TraceIds | undefined;
  /** Exports what is still queued, then stops. */
  shutdown(): Promise<void>;
}

/** The span of a router that does not trace: records nothing, carries nothing on. */
export const NO_SPAN: TraceSpan = Object.freeze({
  setAttributes: () => undefined,
  addEvent: () => undefined,
  fail: () => undefined,
  carrier: () => ({}),
});

/** Tracing off: every step runs as it would without any of this. */
export const NO_TRACING: Tracing = Object.freeze({
  enabled: false,
  inSpan: <T>(_start: () => SpanStart, fn: (span: TraceSpan) => Promise<T>) => fn(NO_SPAN),
  current: () => NO_SPAN,
  currentIds: () => undefined,
  shutdown: () => Promise.resolve(),
});

/** Nest token of the process's `Tracing`. */
export const TRACING = Symbol('centralmcp-router:tracing');

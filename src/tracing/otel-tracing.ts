import { Logger } from '@nestjs/common';
import {
  type Context,
  defaultTextMapGetter,
  diag,
  DiagLogLevel,
  INVALID_TRACEID,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { type RequestContext, requestContext } from '../common/request-context';
import type { TracingConfig } from '../config/config.types';
import { exportProblem } from './domain/export-problems';
import { ATTR } from './domain/spans';
import type { SpanAttributes, SpanOutcome, SpanStart, TraceCarrier, TraceIds, TraceSpan, Tracing } from './tracing';

/** `startSpan`'s options by span kind, shared by every span (the SDK only reads them). */
const OPTIONS = {
  server: Object.freeze({ kind: SpanKind.SERVER }),
  client: Object.freeze({ kind: SpanKind.CLIENT }),
  internal: Object.freeze({ kind: SpanKind.INTERNAL }),
} as const;
const INSTRUMENTATION = 'centralmcp-router';

/**
 * Tracing with the OpenTelemetry SDK: a `NodeTracerProvider` whose sampler and batching the SDK
 * reads from `OTEL_TRACES_SAMPLER*` and `OTEL_BSP_*`, an OTLP/HTTP exporter (protobuf or JSON)
 * that reads its headers, timeout and TLS files from `OTEL_EXPORTER_OTLP_*`, and W3C Trace Context.
 *
 * Nothing is registered globally: the span being run lives in the request's own context (the
 * `span` of `RequestContext`, so no second async-local store is copied into every promise the
 * router creates) and spans are started from this provider's tracer, so nothing else in the
 * process (another library calling the OpenTelemetry API) is changed by turning tracing on. Only
 * the SDK's diagnostics, which the exporter reports its failures to, go to the router's log, each
 * kind of problem once (`trace export problem`).
 */
export class OtelTracing implements Tracing {
  readonly enabled = true;
  private readonly provider: NodeTracerProvider;
  private readonly tracer: Tracer;
  private readonly propagator = new W3CTraceContextPropagator();

  /** `exporter` replaces the OTLP exporter the config names (tests keep spans in memory). */
  constructor(config: TracingConfig, exporter?: SpanExporter) {
    const logger = new Logger('Tracing');
    // Each kind of problem once: an endpoint that is down fails every export, and the calls go on.
    const seen = new Set<string>();
    const report = (level: 'error' | 'warn', message: string, args: unknown[]) => {
      // A component's logger (the exporter's) puts its name first, the message after it.
      const problem = exportProblem([message, ...args.filter((a) => typeof a === 'string')].join(' '));
      if (seen.has(problem.kind)) return;
      seen.add(problem.kind);
      logger[level]({ msg: 'trace export problem', kind: problem.kind, detail: problem.detail });
    };
    diag.setLogger(
      {
        error: (message, ...args) => report('error', message, args),
        warn: (message, ...args) => report('warn', message, args),
        info: () => undefined,
        debug: () => undefined,
        verbose: () => undefined,
      },
      { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
    );
    exporter ??= config.protocol === 'http/json' ? new JsonTraceExporter({ url: config.endpoint }) : new ProtobufTraceExporter({ url: config.endpoint });
    // The router names itself; OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win.
    const resource = defaultResource()
      .merge(resourceFromAttributes({ 'service.name': config.serviceName }))
      .merge(detectResources({ detectors: [envDetector] }));
    this.provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
    this.tracer = this.provider.getTracer(INSTRUMENTATION);
  }

  inSpan<T>(start: () => SpanStart, fn: (span: TraceSpan) => Promise<T>, outcome?: SpanOutcome<T>): Promise<T> {
    const store = requestContext.getStore();
    const running = spanOf(store);
    // Under a span the sampler dropped, no span is started: the work runs in that one, whose
    // context the next hop gets. Every sampler OTEL_TRACES_SAMPLER names would drop it too (the
    // parent-based ones follow a local parent, `traceidratio` reads the same trace id, `always_*`
    // decide alike), and a dropped span is seen by nobody: its id only stood between its parent's
    // and the next hop's. An unsampled request then starts one span, not one per step.
    if (running !== undefined && !running.recording) return runIn(running, fn);
    const s = start();
    const parent = s.parent !== undefined ? this.remoteParent(s.parent) : (running?.asParent() ?? ROOT_CONTEXT);
    const span = this.tracer.startSpan(s.name, s.link !== undefined ? { ...OPTIONS[s.kind], links: this.linkTo(s.link) } : OPTIONS[s.kind], parent);
    // Set on the span rather than passed to startSpan, which copies them twice for the sampler
    // (no sampler the OTEL_TRACES_SAMPLER variable names reads them); a span the sampler dropped
    // records nothing, so its attributes are not even copied.
    const recording = span.isRecording();
    if (recording) {
      if (s.shared !== undefined) span.setAttributes(s.shared);
      span.setAttributes(s.attributes);
    }
    const handle = new OtelSpan(span, recording);
    // Entered (the current span of the work inside it) by running that work in a copy of the
    // request's context; a leaf (or work outside any request) runs in its parent's context.
    if (s.leaf === true || store === undefined) return handle.run(fn, outcome);
    return requestContext.run(entered(store, handle), runSpan, handle, fn, outcome);
  }

  current(): TraceSpan {
    return spanOf(requestContext.getStore()) ?? NO_OTEL_SPAN;
  }

  currentIds(): TraceIds | undefined {
    const running = spanOf(requestContext.getStore());
    if (running === undefined) return undefined;
    const { traceId, spanId } = running.span.spanContext();
    return { traceId, spanId };
  }

  /** Hands every ended span to the exporter now (shutdown does it too). */
  flush(): Promise<void> {
    return this.provider.forceFlush();
  }

  async shutdown(): Promise<void> {
    await this.provider.shutdown();
    diag.disable();
  }

  /** The caller's context; an invalid or absent `traceparent` gives the root, so a new trace starts. */
  private remoteParent(carrier: TraceCarrier): Context {
    return carrier.traceparent === undefined ? ROOT_CONTEXT : this.propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
  }

  private linkTo(carrier: TraceCarrier): Link[] | undefined {
    const context = trace.getSpanContext(this.remoteParent(carrier));
    return context === undefined ? undefined : [{ context }];
  }
}

/** The span being run in a request's context, if any. */
function spanOf(store: RequestContext | undefined): OtelSpan | undefined {
  const span = store?.span;
  return span instanceof OtelSpan ? span : undefined;
}

/**
 * A copy of the request's context with `span` as the span being run. Written out field by field,
 * so every copy has one shape: a spread copies the shapes the request hook and the endpoint gave
 * the context (with or without `traceparent`, `protocolVersion` added later) through V8's slow path.
 */
function entered(store: RequestContext, span: OtelSpan): RequestContext {
  // Every field named (a field added to RequestContext and not copied here does not compile).
  const copy: { [K in keyof Required<RequestContext>]: RequestContext[K] } = {
    requestId: store.requestId,
    traceparent: store.traceparent,
    protocolVersion: store.protocolVersion,
    span,
  };
  return copy;
}

/** `fn` in a span that is already running (and that it does not end): its promise, or its throw as a rejection. */
function runIn<T>(running: OtelSpan, fn: (span: TraceSpan) => Promise<T>): Promise<T> {
  try {
    return fn(running);
  } catch (err) {
    return Promise.reject(err);
  }
}

/** `fn` inside `handle` (a function of its own so that entering a span creates no closure). */
function runSpan<T>(handle: OtelSpan, fn: (span: TraceSpan) => Promise<T>, outcome: SpanOutcome<T> | undefined): Promise<T> {
  return handle.run(fn, outcome);
}

/** A running span of the SDK's, as the router's code uses it. */
class OtelSpan implements TraceSpan {
  /** Whether `fail` was called. */
  private failed = false;
  /** This span as the parent of the spans started inside it, made once the first one starts. */
  private context: Context | undefined;

  /** `recording`: whether the sampler kept the span (a dropped one records nothing, and no span starts under it). */
  constructor(
    readonly span: Span,
    readonly recording: boolean,
  ) {}

  /**
   * Runs `fn` in this span and ends the span when `fn` settles, with what `outcome` records of it.
   * Not async: the span ends on a branch of its own off `fn`'s promise (one promise per span, not
   * an async function's two and their turns), and the caller gets `fn`'s promise itself. The branch
   * was attached first, so the span has ended when the caller's code resumes.
   */
  run<T>(fn: (span: TraceSpan) => Promise<T>, outcome?: SpanOutcome<T>): Promise<T> {
    let work: Promise<T>;
    try {
      work = fn(this);
    } catch (err) {
      this.endFailed(err, outcome);
      return Promise.reject(err);
    }
    work.then(
      (value) => this.endWith(value, outcome),
      (err: unknown) => this.endFailed(err, outcome),
    );
    return work;
  }

  private endWith<T>(value: T, outcome: SpanOutcome<T> | undefined): void {
    if (outcome?.result !== undefined) {
      try {
        outcome.result(this, value);
      } catch (err) {
        // The branch has no one to reject to: a bug in recording fails the span, not the call.
        this.fail(err instanceof Error ? err.name : 'error');
      }
    }
    this.span.end();
  }

  /**
   * Ends a span whose work failed: unless the code said why, by `outcome`'s `errorType` or as a bug
   * of the router's, named by its class (its message may hold anything).
   */
  private endFailed<T>(err: unknown, outcome: SpanOutcome<T> | undefined): void {
    if (!this.failed) this.fail(outcome?.errorType !== undefined ? outcome.errorType(err) : err instanceof Error ? err.name : 'error');
    this.span.end();
  }

  asParent(): Context {
    return (this.context ??= trace.setSpan(ROOT_CONTEXT, this.span));
  }

  setAttributes(attributes: SpanAttributes): void {
    this.span.setAttributes(attributes);
  }

  addEvent(name: string, attributes?: SpanAttributes): void {
    this.span.addEvent(name, attributes);
  }

  fail(errorType: string): void {
    this.failed = true;
    this.span.setAttribute(ATTR.errorType, errorType);
    this.span.setStatus({ code: SpanStatusCode.ERROR });
  }

  /** W3C Trace Context (level 1) written as the propagator writes it, without a context object to carry it there. */
  carrier(): TraceCarrier {
    const { traceId, spanId, traceFlags, traceState } = this.span.spanContext();
    // A span of the SDK's has valid ids; the invalid ones are those of a suppressed trace.
    if (traceId === INVALID_TRACEID) return {};
    const traceparent = `00-${traceId}-${spanId}-${(traceFlags & TraceFlags.SAMPLED) !== 0 ? '01' : '00'}`;
    return traceState === undefined ? { traceparent } : { traceparent, tracestate: traceState.serialize() };
  }
}

/** Outside any span. */
const NO_OTEL_SPAN: TraceSpan = Object.freeze({
  setAttributes: () => undefined,
  addEvent: () => undefined,
  fail: () => undefined,
  carrier: () => ({}),
});

import { Logger } from '@nestjs/common';
import {
  type Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  diag,
  DiagLogLevel,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import type { TracingConfig } from '../config/config.types';
import { exportProblem } from './domain/export-problems';
import { ATTR } from './domain/spans';
import type { SpanAttributes, SpanStart, TraceCarrier, TraceIds, TraceSpan, Tracing } from './tracing';

const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL } as const;
const INSTRUMENTATION = 'centralmcp-router';

/**
 * Tracing with the OpenTelemetry SDK: a `NodeTracerProvider` whose sampler and batching the SDK
 * reads from `OTEL_TRACES_SAMPLER*` and `OTEL_BSP_*`, an OTLP/HTTP exporter (protobuf or JSON)
 * that reads its headers, timeout and TLS files from `OTEL_EXPORTER_OTLP_*`, and W3C Trace Context.
 *
 * Nothing is registered globally: the context of the current span lives in this instance's own
 * async-local store and spans are started from this provider's tracer, so nothing else in the
 * process (another library calling the OpenTelemetry API) is changed by turning tracing on. Only
 * the SDK's diagnostics, which the exporter reports its failures to, go to the router's log, each
 * kind of problem once (`trace export problem`).
 */
export class OtelTracing implements Tracing {
  readonly enabled = true;
  private readonly provider: NodeTracerProvider;
  private readonly tracer: Tracer;
  private readonly contexts = new AsyncLocalStorageContextManager();
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
    this.contexts.enable();
  }

  inSpan<T>(start: () => SpanStart, fn: (span: TraceSpan) => Promise<T>): Promise<T> {
    const s = start();
    const parent = s.parent !== undefined ? this.extract(s.parent) : this.contexts.active();
    const links = s.link !== undefined ? this.linkTo(s.link) : undefined;
    const span = this.tracer.startSpan(s.name, { kind: KINDS[s.kind], attributes: s.attributes, ...(links ? { links } : {}) }, parent);
    const handle = new OtelSpan(span, this.propagator);
    const run = async () => {
      try {
        return await fn(handle);
      } catch (err) {
        // Unless the code said why: a bug of the router's, named by its class (its message may hold anything).
        if (!handle.failed) handle.fail(err instanceof Error ? err.name : 'error');
        throw err;
      } finally {
        span.end();
      }
    };
    return s.leaf === true ? run() : this.contexts.with(trace.setSpan(parent, span), run);
  }

  current(): TraceSpan {
    const span = trace.getSpan(this.contexts.active());
    return span === undefined ? NO_OTEL_SPAN : new OtelSpan(span, this.propagator);
  }

  currentIds(): TraceIds | undefined {
    const context = trace.getSpanContext(this.contexts.active());
    return context === undefined ? undefined : { traceId: context.traceId, spanId: context.spanId };
  }

  /** Hands every ended span to the exporter now (shutdown does it too). */
  flush(): Promise<void> {
    return this.provider.forceFlush();
  }

  async shutdown(): Promise<void> {
    await this.provider.shutdown();
    this.contexts.disable();
    diag.disable();
  }

  /** The caller's context; an invalid or absent `traceparent` gives the root, so a new trace starts. */
  private extract(carrier: TraceCarrier): Context {
    return this.propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
  }

  private linkTo(carrier: TraceCarrier): Link[] | undefined {
    const context = trace.getSpanContext(this.extract(carrier));
    return context === undefined ? undefined : [{ context }];
  }
}

/** A running span of the SDK's, as the router's code uses it. */
class OtelSpan implements TraceSpan {
  /** Whether `fail` was called. */
  failed = false;

  constructor(
    private readonly span: Span,
    private readonly propagator: W3CTraceContextPropagator,
  ) {}

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

  carrier(): TraceCarrier {
    const carrier: TraceCarrier = {};
    this.propagator.inject(trace.setSpan(ROOT_CONTEXT, this.span), carrier, defaultTextMapSetter);
    return carrier;
  }
}

/** Outside any span. */
const NO_OTEL_SPAN: TraceSpan = Object.freeze({
  setAttributes: () => undefined,
  addEvent: () => undefined,
  fail: () => undefined,
  carrier: () => ({}),
});

/**
 * The OpenTelemetry SDK alone, without the router: the least tracing can cost per call with the
 * packages the router uses. A child process (this file, forked by `sdkAlone`) starts and ends the
 * spans one call makes, with the router's own span shapes (`src/tracing/domain/spans.ts`), through
 * the same SDK setup as the router's (`NodeTracerProvider`, `BatchSpanProcessor`, the OTLP/HTTP
 * protobuf exporter, every setting from the same OTEL_* variables), exporting to the same receiver.
 *
 * Calls are paced in groups of 4 per event-loop turn (the bench's 4 connections); the same paced
 * loop with no spans runs too, and its CPU is taken off, so what remains is the SDK's share alone:
 * span objects, the batch processor, the protobuf serialization, the export's HTTP request and the
 * garbage of it all (the process's CPU counts every thread, the GC's helpers included).
 */
import { fork } from 'node:child_process';
import { ROOT_CONTEXT, type Context, type Span, SpanKind, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { SpanStart } from '../src/tracing/tracing';
import { backendAddress, backendCallSpan, batchSpan, callOutcomeAttributes, requestSpan, toolCallSpan } from '../src/tracing/domain/spans';

/** The two shapes section 7 measures. */
export type FloorShape = 'single' | 'entry';

interface Run {
  shape: FloorShape;
  calls: number;
  spans: boolean;
}

const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL } as const;
const PER_TURN = 4;
const BATCH = 25;

/**
 * CPU µs per call (per batch entry for `entry`) that the SDK alone spends on the spans of `shape`,
 * with tracing configured by `env` (the variables the router gets).
 */
export async function sdkAlone(env: Record<string, string>, shape: FloorShape, calls: number): Promise<number> {
  const child = fork(__filename, ['child'], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const ask = (run: Run) =>
    new Promise<number>((resolve, reject) => {
      child.once('message', (m) => resolve(Number(m)));
      child.once('error', reject);
      child.send(run);
    });
  try {
    // Warm: both loops compiled before either is counted.
    await ask({ shape, calls: Math.min(calls, 20_000), spans: true });
    await ask({ shape, calls: Math.min(calls, 20_000), spans: false });
    const withSpans = await ask({ shape, calls, spans: true });
    const without = await ask({ shape, calls, spans: false });
    return Math.max(0, withSpans - without) / calls;
  } finally {
    child.kill();
  }
}

function child(): void {
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': 'centralmcp-router' })),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  const tracer = provider.getTracer('centralmcp-router');
  const address = backendAddress('null', { transport: 'http', url: 'http://127.0.0.1:40000/mcp' });
  const start = (s: SpanStart, parent: Context): Span => {
    const span = tracer.startSpan(s.name, { kind: KINDS[s.kind] }, parent);
    if (s.shared !== undefined) span.setAttributes(s.shared);
    span.setAttributes(s.attributes);
    return span;
  };
  let id = 0;
  const request = (tool: string) =>
    start(
      requestSpan({ method: 'tools/call', id: ++id, protocolVersion: '2025-06-18', toolName: tool, headers: {}, published: new Set([tool]) }),
      ROOT_CONTEXT,
    );
  /** One tool call through the seam and its backend call, inside `parent`. */
  const toolCall = (parent: Context, index?: number) => {
    const span = start(toolCallSpan(index === undefined ? 'invoke_read_tool' : 'batch', index), parent);
    start(backendCallSpan('null', 'fast', address), trace.setSpan(ROOT_CONTEXT, span)).end();
    span.setAttributes(callOutcomeAttributes({ tool: 'fast', server: 'null', status: 'ok' }));
    span.end();
  };
  const single = () => {
    const span = request('invoke_read_tool');
    toolCall(trace.setSpan(ROOT_CONTEXT, span));
    span.end();
  };
  /** A whole batch per 25 entries: its request and batch spans, shared by its entries. */
  let batch: { request: Span; span: Span; context: Context; entries: number } | undefined;
  const entry = () => {
    if (batch === undefined) {
      const r = request('invoke_read_tool_batch');
      const span = start(batchSpan(), trace.setSpan(ROOT_CONTEXT, r));
      batch = { request: r, span, context: trace.setSpan(ROOT_CONTEXT, span), entries: 0 };
    }
    toolCall(batch.context, batch.entries);
    if (++batch.entries === BATCH) {
      batch.span.setAttributes({ 'centralmcp.batch.size': BATCH, 'centralmcp.batch.succeeded': BATCH, 'centralmcp.batch.failed': 0 });
      batch.span.end();
      batch.request.end();
      batch = undefined;
    }
  };
  const nothing = () => undefined;
  process.on('message', (run: Run) => {
    const call = !run.spans ? nothing : run.shape === 'single' ? single : entry;
    const before = process.cpuUsage();
    let done = 0;
    const turn = () => {
      for (let i = 0; i < PER_TURN; i++) call();
      done += PER_TURN;
      if (done < run.calls) setImmediate(turn);
      else
        void provider.forceFlush().then(() => {
          const used = process.cpuUsage(before);
          process.send!(used.user + used.system);
        });
    };
    turn();
  });
}

if (require.main === module && process.argv[2] === 'child') child();

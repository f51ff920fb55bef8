import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { defaultTextMapSetter, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { requestContext } from '../common/request-context';
import { OtelTracing } from './otel-tracing';
import type { TraceCarrier, TraceSpan } from './tracing';

const exporter = new InMemorySpanExporter();
const tracing = new OtelTracing({ endpoint: 'http://127.0.0.1:1/v1/traces', protocol: 'http/protobuf', serviceName: 'under-test' }, exporter);
after(() => tracing.shutdown());

const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

/** The spans ended so far, once the batch processor has handed them over. */
async function finished(): Promise<ReadableSpan[]> {
  await tracing.flush();
  return exporter.getFinishedSpans();
}

test('a span with a remote parent continues the caller trace; its children and the next hop follow it', async () => {
  exporter.reset();
  let hop: { traceparent?: string; tracestate?: string } = {};
  let ids: { traceId: string; spanId: string } | undefined;
  let inRequest: { traceId: string; spanId: string } | undefined;
  // As the router runs every span: inside the context of the request being served.
  await requestContext.run({ requestId: 'r1' }, () =>
    tracing
      .inSpan(
        () => ({
          name: 'tools/call invoke_read_tool',
          kind: 'server',
          attributes: { 'mcp.method.name': 'tools/call' },
          parent: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, tracestate: 'v=1' },
        }),
        () =>
          tracing.inSpan(
            () => ({ name: 'tools/call echo', kind: 'client', attributes: {} }),
            (span) => {
              hop = span.carrier();
              ids = tracing.currentIds();
              return Promise.resolve();
            },
          ),
      )
      .then(() => (inRequest = tracing.currentIds())),
  );
  const [client, server] = await finished();
  assert.equal(server.spanContext().traceId, CALLER_TRACE);
  assert.equal(server.parentSpanContext?.spanId, CALLER_SPAN);
  assert.equal(server.resource.attributes['service.name'], 'under-test');
  assert.equal(client.parentSpanContext?.spanId, server.spanContext().spanId);
  assert.deepEqual(ids, { traceId: CALLER_TRACE, spanId: client.spanContext().spanId });
  assert.deepEqual(hop, { traceparent: `00-${CALLER_TRACE}-${client.spanContext().spanId}-01`, tracestate: 'v=1' });
  assert.equal(inRequest, undefined, 'in the request, after its span ended');
  assert.equal(tracing.currentIds(), undefined, 'outside every span');
});

test('the span being run is the one the work is inside, also when spans of one request overlap', async () => {
  exporter.reset();
  const seen: Record<string, string | undefined> = {};
  await requestContext.run({ requestId: 'r2' }, () =>
    tracing.inSpan(
      () => ({ name: 'batch', kind: 'internal', attributes: {} }),
      () =>
        Promise.all(
          ['a', 'b'].map((name) =>
            tracing.inSpan(
              () => ({ name, kind: 'internal', attributes: {} }),
              async () => {
                await new Promise((resolve) => setImmediate(resolve));
                seen[name] = tracing.currentIds()?.spanId;
              },
            ),
          ),
        ),
    ),
  );
  const spans = await finished();
  const byName = Object.fromEntries(spans.map((s) => [s.name, s]));
  assert.equal(seen.a, byName.a.spanContext().spanId);
  assert.equal(seen.b, byName.b.spanContext().spanId);
  assert.equal(byName.a.parentSpanContext?.spanId, byName.batch.spanContext().spanId);
  assert.equal(byName.b.parentSpanContext?.spanId, byName.batch.spanContext().spanId);
});

test('the next hop is told of a span exactly as the W3C propagator writes it, sampled or not', async () => {
  exporter.reset();
  const parents = [{ traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, tracestate: 'v=1,w=2' }, {}, { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-00` }];
  const hops: TraceCarrier[] = [];
  for (const parent of parents) {
    hops.push(
      await tracing.inSpan(
        () => ({ name: 'tools/call echo', kind: 'client', attributes: { 'gen_ai.tool.name': 'echo' }, parent }),
        (span) => Promise.resolve(span.carrier()),
      ),
    );
  }
  // The caller's unsampled trace is not recorded (the default sampler follows the parent) and goes on unsampled.
  const recorded = await finished();
  assert.equal(recorded.length, 2);
  const propagator = new W3CTraceContextPropagator();
  recorded.forEach((span, i) => {
    const written = {};
    propagator.inject(trace.setSpanContext(ROOT_CONTEXT, span.spanContext()), written, defaultTextMapSetter);
    assert.deepEqual(hops[i], written);
  });
  assert.equal(hops[0].tracestate, 'v=1,w=2');
  assert.match(hops[2].traceparent ?? '', new RegExp(`^00-${CALLER_TRACE}-[0-9a-f]{16}-00$`));
  assert.equal(hops[2].tracestate, undefined);
});

test('under a span the sampler dropped no span starts: the work runs in it, and the next hop carries it, unsampled', async () => {
  exporter.reset();
  const unsampled = { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-00` };
  let shapesBuilt = 0;
  const seen: { outer?: TraceCarrier; inner?: TraceCarrier; outerIds?: unknown; innerIds?: unknown } = {};
  await requestContext.run({ requestId: 'r-unsampled' }, () =>
    tracing.inSpan(
      () => ({ name: 'tools/call invoke_read_tool', kind: 'server', attributes: {}, parent: unsampled }),
      (request) => {
        seen.outer = request.carrier();
        seen.outerIds = tracing.currentIds();
        return tracing.inSpan(
          () => (shapesBuilt++, { name: 'invoke_read_tool', kind: 'internal', attributes: {} }),
          () =>
            tracing.inSpan(
              () => (shapesBuilt++, { name: 'tools/call echo', kind: 'client', attributes: {}, leaf: true }),
              (backend) => {
                seen.inner = backend.carrier();
                seen.innerIds = tracing.currentIds();
                return Promise.resolve();
              },
            ),
        );
      },
    ),
  );
  assert.equal(shapesBuilt, 0, 'no span started under the dropped one');
  assert.match(seen.outer?.traceparent ?? '', new RegExp(`^00-${CALLER_TRACE}-[0-9a-f]{16}-00$`));
  assert.notEqual(seen.outer?.traceparent, unsampled.traceparent, "the router's own span is the next hop's parent");
  assert.deepEqual(seen.inner, seen.outer);
  assert.deepEqual(seen.innerIds, seen.outerIds);
  // Work that throws before it returns a promise still rejects, and nothing is recorded.
  await assert.rejects(
    requestContext.run({ requestId: 'r-unsampled-2' }, () =>
      tracing.inSpan(
        () => ({ name: 'tools/call invoke_read_tool', kind: 'server', attributes: {}, parent: unsampled }),
        () =>
          tracing.inSpan(
            () => ({ name: 'invoke_read_tool', kind: 'internal', attributes: {} }),
            () => {
              throw new TypeError('bug');
            },
          ),
      ),
    ),
    TypeError,
  );
  assert.equal((await finished()).length, 0);
});

test('a malformed traceparent starts a new trace; a differing HTTP context is a link', async () => {
  exporter.reset();
  const link = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;
  await tracing.inSpan(
    () => ({ name: 'ping', kind: 'server', attributes: {}, parent: { traceparent: 'not-a-traceparent' }, link: { traceparent: link } }),
    () => Promise.resolve(),
  );
  const [span] = await finished();
  assert.notEqual(span.spanContext().traceId, CALLER_TRACE);
  assert.equal(span.parentSpanContext, undefined);
  assert.deepEqual(
    span.links.map((l) => l.context.spanId),
    [CALLER_SPAN],
  );
});

test('a failed span says why with a closed code; a thrown error is named by its class, never its message', async () => {
  exporter.reset();
  await tracing.inSpan(
    () => ({ name: 'a', kind: 'internal', attributes: {} }),
    (span) => Promise.resolve(span.fail('backend_timeout')),
  );
  await assert.rejects(
    tracing.inSpan(
      () => ({ name: 'b', kind: 'internal', attributes: {} }),
      () => Promise.reject(new TypeError('secret-argument-value')),
    ),
  );
  // Work that throws before it returns a promise: the caller still gets a rejection, the span ends failed.
  const thrown = tracing.inSpan(
    () => ({ name: 'c', kind: 'internal', attributes: {} }),
    () => {
      throw new RangeError('secret-argument-value');
    },
  );
  await assert.rejects(thrown, RangeError);
  const [a, b, c] = await finished();
  assert.deepEqual([a.attributes['error.type'], a.status.code], ['backend_timeout', 2]);
  assert.deepEqual([b.attributes['error.type'], b.status.code], ['TypeError', 2]);
  assert.equal(b.status.message, undefined);
  assert.equal(JSON.stringify(b.events), '[]');
  assert.deepEqual([c.name, c.attributes['error.type'], c.status.code], ['c', 'RangeError', 2]);
});

test('a span has ended by the time the code that awaits it goes on', async () => {
  exporter.reset();
  const order: string[] = [];
  await requestContext.run({ requestId: 'r3' }, () =>
    tracing.inSpan(
      () => ({ name: 'outer', kind: 'internal', attributes: {} }),
      async () => {
        await tracing.inSpan(
          () => ({ name: 'inner', kind: 'internal', attributes: {} }),
          () => new Promise((resolve) => setImmediate(resolve)),
        );
        // Flushed from here, the inner span is exported: it ended before this line ran.
        await tracing.flush();
        order.push(...exporter.getFinishedSpans().map((s) => s.name));
      },
    ),
  );
  const spans = await finished();
  assert.deepEqual(order, ['inner']);
  assert.deepEqual(
    spans.map((s) => s.name),
    ['inner', 'outer'],
  );
});

test('what the outcome records of a result or an error is on the span when it ends; the caller gets the work as it came out', async () => {
  exporter.reset();
  const outcome = {
    result: (span: TraceSpan, value: { isError: boolean }) => (value.isError ? span.fail('tool_error') : span.setAttributes({ 'centralmcp.status': 'ok' })),
    errorType: (err: unknown) => (err instanceof RangeError ? 'backend_timeout' : 'backend_failed'),
  };
  const run = (name: string, work: () => Promise<{ isError: boolean }>) => tracing.inSpan(() => ({ name, kind: 'client', attributes: {} }), work, outcome);
  assert.deepEqual(await run('ok', () => Promise.resolve({ isError: false })), { isError: false });
  assert.deepEqual(await run('tool', () => Promise.resolve({ isError: true })), { isError: true });
  await assert.rejects(
    run('timeout', () => Promise.reject(new RangeError('deadline'))),
    RangeError,
  );
  await assert.rejects(
    run('thrown', () => {
      throw new TypeError('at once');
    }),
    TypeError,
  );
  // A bug in recording fails the span, never the call.
  const broken = await tracing.inSpan(
    () => ({ name: 'broken', kind: 'internal', attributes: {} }),
    () => Promise.resolve('answer'),
    {
      result: () => {
        throw new SyntaxError('recording bug');
      },
    },
  );
  assert.equal(broken, 'answer');
  const byName = Object.fromEntries((await finished()).map((s) => [s.name, s]));
  assert.deepEqual([byName.ok.attributes['centralmcp.status'], byName.ok.status.code], ['ok', 0]);
  assert.deepEqual([byName.tool.attributes['error.type'], byName.tool.status.code], ['tool_error', 2]);
  assert.equal(byName.timeout.attributes['error.type'], 'backend_timeout');
  assert.equal(byName.thrown.attributes['error.type'], 'backend_failed');
  assert.deepEqual([byName.broken.attributes['error.type'], byName.broken.status.code], ['SyntaxError', 2]);
});

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { OtelTracing } from './otel-tracing';

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
  await tracing.inSpan(
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
  );
  const [client, server] = await finished();
  assert.equal(server.spanContext().traceId, CALLER_TRACE);
  assert.equal(server.parentSpanContext?.spanId, CALLER_SPAN);
  assert.equal(server.resource.attributes['service.name'], 'under-test');
  assert.equal(client.parentSpanContext?.spanId, server.spanContext().spanId);
  assert.deepEqual(ids, { traceId: CALLER_TRACE, spanId: client.spanContext().spanId });
  assert.deepEqual(hop, { traceparent: `00-${CALLER_TRACE}-${client.spanContext().spanId}-01`, tracestate: 'v=1' });
  assert.equal(tracing.currentIds(), undefined, 'outside every span');
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
  const [a, b] = await finished();
  assert.deepEqual([a.attributes['error.type'], a.status.code], ['backend_timeout', 2]);
  assert.deepEqual([b.attributes['error.type'], b.status.code], ['TypeError', 2]);
  assert.equal(b.status.message, undefined);
  assert.equal(JSON.stringify(b.events), '[]');
});

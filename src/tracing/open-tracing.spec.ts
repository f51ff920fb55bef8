import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTracing } from './open-tracing';
import { NO_SPAN, NO_TRACING } from './tracing';

test('without an endpoint the router does not trace, and the OpenTelemetry SDK is never loaded', async () => {
  const tracing = await openTracing(undefined);
  assert.equal(tracing, NO_TRACING);
  assert.equal(
    await tracing.inSpan(
      () => assert.fail('a span shape is built'),
      (span) => Promise.resolve(span),
    ),
    NO_SPAN,
  );
  assert.equal(tracing.currentIds(), undefined);
  assert.deepEqual(NO_SPAN.carrier(), {});
  const loaded = Object.keys(require.cache).filter((path) => path.includes(`${'@opentelemetry'}/sdk-trace`) || path.includes('exporter-trace-otlp'));
  assert.deepEqual(loaded, []);
});

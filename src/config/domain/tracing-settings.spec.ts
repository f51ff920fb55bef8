import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_SERVICE_NAME, readTracingSettings } from './tracing-settings';

function read(env: Record<string, string>): { tracing: ReturnType<typeof readTracingSettings>; problems: string[] } {
  const problems: string[] = [];
  return { tracing: readTracingSettings(env, problems), problems };
}

test('no endpoint, or the SDK disabled, is no tracing and checks nothing', () => {
  assert.deepEqual(read({}), { tracing: undefined, problems: [] });
  assert.deepEqual(read({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ', OTEL_TRACES_SAMPLER: 'nonsense' }), { tracing: undefined, problems: [] });
  assert.deepEqual(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' }), { tracing: undefined, problems: [] });
});

test('the base endpoint gets v1/traces appended; the traces endpoint is used as given and wins', () => {
  assert.deepEqual(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing, {
    endpoint: 'http://collector:4318/v1/traces',
    protocol: 'http/protobuf',
    serviceName: DEFAULT_SERVICE_NAME,
  });
  assert.equal(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/otlp/' }).tracing?.endpoint, 'http://collector:4318/otlp/v1/traces');
  const both = read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/traces' });
  assert.equal(both.tracing?.endpoint, 'https://b/traces');
});

test('protocol: http/protobuf by default, http/json when asked, the traces variable first', () => {
  const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
  assert.equal(read({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }).tracing?.protocol, 'http/json');
  assert.equal(
    read({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }).tracing?.protocol,
    'http/protobuf',
  );
  assert.deepEqual(read({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }).problems, [
    'OTEL_EXPORTER_OTLP_PROTOCOL: must be one of http/protobuf, http/json (grpc is not supported)',
  ]);
});

test('the service name comes from OTEL_SERVICE_NAME', () => {
  assert.equal(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SERVICE_NAME: 'gateway-eu' }).tracing?.serviceName, 'gateway-eu');
});

test('values the SDK would silently replace are boot problems, each named by its variable', () => {
  const { tracing, problems } = read({
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'collector:4318',
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '1.5',
    OTEL_BSP_SCHEDULE_DELAY: '-1',
    OTEL_BSP_MAX_QUEUE_SIZE: 'lots',
  });
  assert.equal(tracing, undefined);
  assert.deepEqual(problems, [
    'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: must be an http:// or https:// URL',
    'OTEL_TRACES_SAMPLER_ARG: must be a number from 0 to 1',
    'OTEL_BSP_SCHEDULE_DELAY: must be an integer of at least 0',
    'OTEL_BSP_MAX_QUEUE_SIZE: must be an integer of at least 1',
  ]);
  assert.deepEqual(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_TRACES_SAMPLER: 'jaeger_remote' }).problems, [
    'OTEL_TRACES_SAMPLER: must be one of always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio',
  ]);
  // An argument no configured sampler reads is not judged.
  assert.deepEqual(read({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_TRACES_SAMPLER: 'always_on', OTEL_TRACES_SAMPLER_ARG: 'x' }).problems, []);
});

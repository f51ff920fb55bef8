import { ANONYMOUS } from '../common/principal';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Test, type TestingModule } from '@nestjs/testing';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import { AppModule } from '../app.module';
import { BackendsService } from '../backends/backends.service';
import { BatchService } from '../batch/batch.service';
import { filesBackend, tempDir, testConfig } from '../../test/support/router';
import { MetricsService } from './metrics.service';
import { METRICS_PREFIX } from './metrics.tokens';

type Metrics = MetricObjectWithValues<MetricValue<string>>[];

/** The router's own series; process metrics come and go with the runtime (GC kinds, handles). */
function ownSeries(metrics: Metrics): string[] {
  return metrics
    .filter((m) => !/^centralmcp_router_(process|nodejs)_/.test(m.name))
    .flatMap((m) => m.values.map((v) => `${(v as { metricName?: string }).metricName ?? m.name}${JSON.stringify(v.labels)}`))
    .sort();
}

function valueOf(metrics: Metrics, name: string, labels: Record<string, string>): number | undefined {
  const metric = metrics.find((m) => m.name === METRICS_PREFIX + name);
  return metric?.values.find((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want))?.value;
}

describe('MetricsService in the real module graph', () => {
  let moduleRef: TestingModule;
  let metrics: MetricsService;

  before(async () => {
    moduleRef = await Test.createTestingModule({ imports: [AppModule.register(testConfig([filesBackend(tempDir())]))] }).compile();
    await moduleRef.init();
    await moduleRef.get(BackendsService).start();
    metrics = moduleRef.get(MetricsService);
  });
  after(async () => moduleRef.close());

  test('a backend or bucket the config does not name is labelled "none"', async () => {
    metrics.recordCall('invoke_read_tool', 'not-configured', 'unknown_tool');
    metrics.recordCall('batch', 'files', 'ok');
    metrics.observeBackendCall('../etc/passwd', 'error', 0.2);
    metrics.observeRateLimitWait('made-up', 0.5);
    metrics.recordRateLimitTimeout('global');
    const json = await metrics.registry.getMetricsAsJSON();
    assert.equal(valueOf(json, 'calls_total', { entrypoint: 'invoke_read_tool', backend: 'none', status: 'unknown_tool' }), 1);
    assert.equal(valueOf(json, 'calls_total', { entrypoint: 'batch', backend: 'files', status: 'ok' }), 1);
    assert.equal(valueOf(json, 'backend_call_duration_seconds', { backend: 'none', status: 'error', le: '+Inf' }), 1);
    assert.equal(valueOf(json, 'rate_limit_wait_seconds', { bucket: 'none', le: '+Inf' }), 1);
    assert.equal(valueOf(json, 'rate_limit_timeouts_total', { bucket: 'global' }), 1);
    const labels = ownSeries(json).join('\n');
    for (const hostile of ['not-configured', 'passwd', 'made-up']) assert.doesNotMatch(labels, new RegExp(hostile));
  });

  test('the status-labelled series exist at 0 from the start, for every backend and "none"', async () => {
    const json = await metrics.registry.getMetricsAsJSON();
    const calls = json.find((m) => m.name === `${METRICS_PREFIX}calls_total`);
    assert.equal(calls?.values.length, 5 * 2 * 7, '(3 tools, read_resource, get_prompt) × (files, none) × statuses');
    assert.equal(valueOf(json, 'calls_total', { entrypoint: 'batch', backend: 'files', status: 'invalid_cursor' }), 0);
    assert.equal(valueOf(json, 'cursor_rejections_total', { reason: 'bad_signature' }), 0);
    assert.equal(valueOf(json, 'batches_total', { outcome: 'partial' }), 0);
    assert.equal(valueOf(json, 'backend_restarts_total', { backend: 'files' }), 0);
  });

  test('requests naming 1,000 random tools and servers add no series', async () => {
    const batch = moduleRef.get(BatchService);
    const random = () => randomBytes(6).toString('hex');
    const hostile = (name: string) => {
      metrics.recordCall('batch', name, 'unknown_tool');
      metrics.observeBackendCall(name, 'error', 0.01);
      metrics.observeRateLimitWait(name, 0);
      metrics.recordRateLimitTimeout(name);
    };
    // A first round creates the one "none" series each metric may have; from then on, nothing new.
    await batch.readBatch({ calls: [{ name: random() }] }, ANONYMOUS);
    hostile(random());
    const before = ownSeries(await metrics.registry.getMetricsAsJSON());
    for (let round = 0; round < 40; round++) {
      const calls = Array.from({ length: 25 }, (_, i) => (i % 2 === 0 ? { name: random() } : { name: random(), server: random() }));
      await batch.readBatch({ calls }, ANONYMOUS);
    }
    // The same hostile names straight at the recording API, as a seam bug would pass them.
    for (let i = 0; i < 1000; i++) hostile(random());
    const after = ownSeries(await metrics.registry.getMetricsAsJSON());
    assert.deepEqual(after, before);
  });

  test('backend state is read at scrape time', async () => {
    const text = await metrics.render();
    assert.match(text, /^centralmcp_router_backend_up\{backend="files"\} 1$/m);
    const tools = Number(/^centralmcp_router_catalog_tools\{backend="files"\} (\d+)$/m.exec(text)?.[1]);
    assert.ok(tools > 0, `catalog_tools ${tools}`);
    assert.match(metrics.contentType, /^text\/plain; version=0\.0\.4/);
  });

  test('a backend era is an info-style gauge; MCP requests exist at 0 for every version and method', async () => {
    const json = await metrics.registry.getMetricsAsJSON();
    assert.equal(valueOf(json, 'backend_protocol_era', { backend: 'files', era: 'legacy' }), 1, 'a stdio backend is met with initialize');
    assert.equal(valueOf(json, 'backend_protocol_era', { backend: 'files', era: 'modern' }), 0);
    const requests = json.find((m) => m.name === `${METRICS_PREFIX}mcp_requests_total`);
    assert.equal(requests?.values.length, 5 * 12, '(3 versions, unsupported, none) × (11 methods, other)');
    assert.ok(requests?.values.every((v) => v.value === 0));
  });
});

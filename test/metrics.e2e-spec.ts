import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { requireCommand } from './support/prerequisites';
import { callTool, filesBackend, startRouter, tempDir, testConfig, type RunningRouter } from './support/router';

/** One sample line of the text exposition: name, optional labels, value. */
const SAMPLE = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})? -?(?:[0-9.e+-]+|NaN|\+Inf|-Inf)$/;

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics on a running router', () => {
  let router: RunningRouter;
  let client: Client;
  let base: string;
  const scrape = async () => {
    const res = await fetch(`${base}/metrics`);
    return { res, text: await res.text() };
  };

  before(async () => {
    router = await startRouter(testConfig([filesBackend(tempDir())]));
    base = router.url.replace(/\/mcp$/, '');
    client = await router.connect();
    await callTool(client, 'find_tool', { query: 'read a file' });
  });
  after(async () => router.close());

  test('answers the Prometheus text format', async () => {
    const { res, text } = await scrape();
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4; charset=utf-8$/);
    const malformed = text.split('\n').filter((l) => l !== '' && !l.startsWith('#') && !SAMPLE.test(l));
    assert.deepEqual(malformed, []);
  });

  test('the whole exposition, process metrics included, passes `promtool check metrics`', async () => {
    // Never skipped: without promtool this fails naming the Debian package (.ci/run installs it).
    requireCommand('promtool');
    const { text } = await scrape();
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
    assert.match(text, /^centralmcp_router_nodejs_active_handles\{type="\w+"\} \d+$/m);
  });

  test('reads backend state and catalog size live', async () => {
    const { text } = await scrape();
    assert.equal(sample(text, 'centralmcp_router_backend_up{backend="files"}'), 1);
    assert.ok((sample(text, 'centralmcp_router_catalog_tools{backend="files"}') ?? 0) > 0);
    assert.equal(sample(text, 'centralmcp_router_backend_restarts_total{backend="files"}'), 0);
    assert.match(text, /^# TYPE centralmcp_router_backend_restarts_total counter$/m);
  });

  test('pre-initialises call series, and counts HTTP requests by route pattern and code', async () => {
    const probe = `/no-such-path/${randomBytes(8).toString('hex')}`;
    assert.equal((await fetch(base + probe)).status, 404);
    const { text } = await scrape();
    assert.equal(sample(text, 'centralmcp_router_calls_total{entrypoint="batch",backend="files",status="blocked"}'), 0);
    assert.equal(sample(text, 'centralmcp_router_calls_total{entrypoint="invoke_read_tool",backend="none",status="invalid_call"}'), 0);
    assert.ok((sample(text, 'centralmcp_router_http_requests_total{method="POST",route="/mcp",code="200"}') ?? 0) >= 2);
    assert.ok((sample(text, 'centralmcp_router_http_request_duration_seconds_count{method="POST",route="/mcp",code="200"}') ?? 0) >= 2);
    assert.ok((sample(text, 'centralmcp_router_http_requests_total{method="GET",route="unmatched",code="404"}') ?? 0) >= 1);
    assert.doesNotMatch(text, /no-such-path/);
  });

  test('includes the default process metrics under the prefix', async () => {
    const { text } = await scrape();
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
      assert.match(text, new RegExp(`^centralmcp_router_${name} `, 'm'), name);
    }
  });

  test('every response carries a correlation id: a sane x-request-id is echoed, anything else replaced', async () => {
    const sane = await fetch(`${base}/health/live`, { headers: { 'x-request-id': 'req-42.a:b' } });
    assert.equal(sane.headers.get('x-request-id'), 'req-42.a:b');
    for (const bad of ['has space', 'x'.repeat(200), '"quoted"']) {
      const res = await fetch(`${base}/health/live`, { headers: { 'x-request-id': bad } });
      assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, bad);
    }
  });
});

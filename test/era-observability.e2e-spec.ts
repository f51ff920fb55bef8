/**
 * The operator's view of protocol eras (docs/protocol-eras.md "What an operator sees"): the built
 * router in its own process, a 2025 client (SDK v1) and a 2026-07-28 client (SDK v2) at its front,
 * a 2026-only backend and the 2025 server-everything behind it. What the test reads is what an
 * operator reads: /metrics and the audit lines on stdout. Then one backend URL served first by a
 * 2026 server, then by a 2025 one: the era gauge follows the reconnect.
 */
import assert from 'node:assert/strict';
import { METHOD_LABELS, VERSION_LABELS } from '../src/mcp/domain/request-labels';
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { BackendsService } from '../src/backends/backends.service';
import { until, waitFor } from './support/backend-processes';
import { freePort, httpBackend, startEverythingHttp, stopProcess } from './support/backend-servers';
import { deltas, scrapeMetrics } from './support/metrics';
import { requireCommand } from './support/prerequisites';
import { type ModernServer, startModernServer } from './support/modern-backend';
import { startRouter, testConfig, type RunningRouter } from './support/router';
import { spawnRouter, type SpawnedRouter } from './support/router-process';

const REQUESTS = 'centralmcp_router_mcp_requests_total';
/** An argument value that must never reach the audit or the metrics. */
const CANARY = 'Canary-City-7f3a';

describe('protocol eras as an operator sees them: /metrics and the audit lines', () => {
  let modern: ModernServer;
  let everything: ChildProcess;
  let router: SpawnedRouter;
  let url: string;
  let base: string;
  let before1: Map<string, number>;
  let after1: Map<string, number>;

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });

  before(async () => {
    const everythingPort = await freePort();
    [modern, everything] = await Promise.all([startModernServer('wx'), startEverythingHttp(everythingPort)]);
    router = spawnRouter(
      [
        'backends:',
        '  wx:',
        '    transport: http',
        `    url: ${modern.url}`,
        '    timeoutMs: 5000',
        '  everything:',
        '    transport: http',
        `    url: http://127.0.0.1:${everythingPort}/mcp`,
        '    timeoutMs: 15000',
        '',
      ].join('\n'),
    );
    url = await router.listening();
    base = url.replace(/\/mcp$/, '');
    await until(async () => (await fetch(`${base}/health/ready`)).status === 200, 60_000, 'the router ready (both backends up)');

    before1 = await scrapeMetrics({ url });
    // A 2025 client: the SDK v1 Client asks for its newest version, 2025-11-25.
    const v1 = new ClientV1({ name: 'era-obs-2025', version: '1.0.0' });
    await v1.connect(new TransportV1(new URL(url)));
    try {
      await v1.listTools();
      const sum = await v1.callTool({ name: 'invoke_read_tool', arguments: { name: 'get-sum', server: 'everything', arguments: { a: 2, b: 3 } } });
      assert.notEqual(sum.isError, true, JSON.stringify(sum));
    } finally {
      await v1.close();
    }
    // A 2026-07-28 client: the SDK v2 Client, negotiating through server/discover.
    const v2 = new ClientV2({ name: 'era-obs-2026', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await v2.connect(new TransportV2(new URL(url)));
    try {
      assert.equal(v2.getNegotiatedProtocolVersion(), '2026-07-28');
      await v2.listTools();
      const weather = await v2.callTool({ name: 'invoke_read_tool', arguments: { name: 'wx_weather', server: 'wx', arguments: { city: CANARY } } });
      assert.notEqual(weather.isError, true, JSON.stringify(weather));
    } finally {
      await v2.close();
    }
    // What no client library sends: a version nobody lists, a method nobody serves, no version at all.
    assert.equal((await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { 'mcp-protocol-version': `1999-${CANARY}` })).status, 400);
    assert.equal((await post({ jsonrpc: '2.0', id: 2, method: `resources/${CANARY}` }, { 'mcp-protocol-version': '2025-06-18' })).status, 200);
    assert.equal((await post({ jsonrpc: '2.0', id: 3, method: 'ping' })).status, 200);
    after1 = await scrapeMetrics({ url });
  });
  after(async () => {
    if (router !== undefined && router.child.exitCode === null) {
      router.child.kill('SIGTERM');
      await router.exited;
    }
    await Promise.all([modern?.stop(), everything && stopProcess(everything)]);
  });

  test('mcp_requests_total counts each message by the version it claims and its method, from closed label sets', async () => {
    const series = (version: string, method: string) => `${REQUESTS}{version="${version}",method="${method}"}`;
    assert.deepEqual(deltas(before1, after1, REQUESTS), {
      [series('2025-11-25', 'initialize')]: 1,
      [series('2025-11-25', 'notifications/initialized')]: 1,
      [series('2025-11-25', 'tools/list')]: 1,
      [series('2025-11-25', 'tools/call')]: 1,
      [series('2026-07-28', 'server/discover')]: 1,
      [series('2026-07-28', 'tools/list')]: 1,
      [series('2026-07-28', 'tools/call')]: 1,
      [series('unsupported', 'tools/list')]: 1,
      [series('2025-06-18', 'other')]: 1,
      [series('none', 'ping')]: 1,
    });
    const text = await (await fetch(`${base}/metrics`)).text();
    assert.match(text, /^# TYPE centralmcp_router_mcp_requests_total counter$/m);
    assert.equal(text.includes(CANARY), false, 'a client-chosen string never becomes a label');
    // Bounded: (3 versions, unsupported, none) × (the served methods, other), all there from the start.
    assert.equal([...before1.keys()].filter((s) => s.startsWith(`${REQUESTS}{`)).length, VERSION_LABELS.length * METHOD_LABELS.length);
    assert.equal(VERSION_LABELS.length, 5);
  });

  test('backend_protocol_era shows the 2026-only backend as modern and server-everything as legacy', () => {
    assert.deepEqual(Object.fromEntries([...after1].filter(([s]) => s.startsWith('centralmcp_router_backend_protocol_era{'))), {
      'centralmcp_router_backend_protocol_era{backend="wx",era="legacy"}': 0,
      'centralmcp_router_backend_protocol_era{backend="wx",era="modern"}': 1,
      'centralmcp_router_backend_protocol_era{backend="everything",era="legacy"}': 1,
      'centralmcp_router_backend_protocol_era{backend="everything",era="modern"}': 0,
    });
  });

  test('the audit line of each tool call on stdout carries the protocol version its client used, never an argument', async () => {
    const calls = () => router.logs.filter((l) => l.kind === 'call');
    await waitFor(() => calls().length >= 2, 60_000, 'two audit lines');
    const byTool = Object.fromEntries(calls().map((l) => [String(l.tool), l] as const));
    assert.equal(byTool['get-sum']?.protocolVersion, '2025-11-25');
    assert.equal(byTool['get-sum']?.backend, 'everything');
    assert.equal(byTool['wx_weather']?.protocolVersion, '2026-07-28');
    assert.equal(byTool['wx_weather']?.status, 'ok');
    assert.equal(JSON.stringify(calls()).includes(CANARY), false);
  });

  test('the exposition with the era metrics passes `promtool check metrics`', async () => {
    requireCommand('promtool');
    const text = await (await fetch(`${base}/metrics`)).text();
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    assert.equal(check.status, 0, `${check.stdout}${check.stderr}`);
  });
});

describe('a backend met in another era after a reconnect', () => {
  let modern: ModernServer;
  let everything: ChildProcess | undefined;
  let router: RunningRouter;
  const stateOf = () =>
    router.app
      .get(BackendsService)
      .states()
      .find((s) => s.name === 'svc')!;
  const eraSeries = async () => {
    const samples = await scrapeMetrics(router);
    return ['legacy', 'modern'].map((era) => samples.get(`centralmcp_router_backend_protocol_era{backend="svc",era="${era}"}`));
  };

  before(async () => {
    modern = await startModernServer('svc');
    router = await startRouter(testConfig([httpBackend('svc', modern.url, { timeoutMs: 5_000, required: false })]));
  });
  after(async () => {
    await router?.close();
    await Promise.all([modern?.stop(), everything && stopProcess(everything)]);
  });

  test('backend_protocol_era follows it: modern, kept while it is down, then legacy once met as a 2025 server', { timeout: 300_000 }, async () => {
    await waitFor(() => stateOf().status === 'up', 60_000, 'svc up');
    assert.deepEqual(await eraSeries(), [0, 1]);
    // The same URL, now served by a 2025 server (a rollback in place): `era: auto` probes again.
    await modern.stop();
    await waitFor(() => stateOf().status !== 'up', 60_000, 'svc lost');
    assert.deepEqual(await eraSeries(), [0, 1], 'the last known era stays while the backend is away');
    everything = await startEverythingHttp(modern.port);
    await waitFor(() => stateOf().status === 'up' && stateOf().era === 'legacy', 60_000, 'svc up again as a 2025 server');
    assert.deepEqual(await eraSeries(), [1, 0]);
  });
});

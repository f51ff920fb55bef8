import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BackendsService } from '../src/backends/backends.service';
import { LifecycleService } from '../src/lifecycle/lifecycle.service';
import { until, waitFor } from './support/backend-processes';
import { childrenOf, faultHttpBackend, faultStdioBackend, type FaultHttpServer, fixtureStats, readCounts, startFaultHttp } from './support/fault-backends';
import { startRouter, tempDir, testConfig, type BatchAnswer, type RunningRouter, type SingleAnswer } from './support/router';

/**
 * The ledger under load: 20 SDK clients, each making hundreds of single and batch calls
 * over three backends while faults are injected. Every request is answered exactly once; every
 * batch answers one entry per call, in order; for each status, what the clients saw equals what the
 * backends received and what the router's metrics counted; afterwards nothing is in flight, the
 * backends' processes are back to their count, and the post-GC heap is back near its baseline.
 */

const CLIENTS = 20;
/** Requests per client (a batch is one request of 1..12 calls): about 7,000 tool calls in all. */
const REQUESTS_PER_CLIENT = 120;
const FAULT_TIMEOUT_MS = 1000;
/** Post-GC heap after the run may exceed the baseline by at most this much. */
const HEAP_SLACK_BYTES = 16 * 1024 * 1024;
const BACKENDS = ['alpha', 'beta', 'gamma'] as const;

/**
 * What a client asks for, with the weight it is drawn with. `alpha` (stdio) and `beta` (HTTP)
 * misbehave without dying (hang past the deadline, tool errors, over-long and malformed answers),
 * so every call they answer is on the books exactly; `gamma` (stdio) is crashed on a schedule.
 */
const MENU: [number, Record<string, unknown>][] = [
  [30, { name: 'fast', server: 'alpha' }],
  [30, { name: 'fast', server: 'beta' }],
  [12, { name: 'fast', server: 'gamma' }],
  [4, { name: 'fail', server: 'alpha' }],
  [4, { name: 'fail', server: 'beta' }],
  [1, { name: 'huge', server: 'alpha' }],
  [2, { name: 'malformed', server: 'alpha', arguments: { kind: 'bad_result' } }],
  [2, { name: 'malformed', server: 'beta' }],
  [1, { name: 'hang', server: 'alpha' }],
  [1, { name: 'hang', server: 'beta' }],
  [3, { name: 'purge_cache', server: 'alpha' }],
  [3, { name: 'no_such_tool' }],
  [2, { name: 'fast', server: 'alpha', arguments: 'not an object' }],
  [2, { name: 'fast', server: 'beta', cursor: 'forged-cursor' }],
];
const TOTAL_WEIGHT = MENU.reduce((n, [w]) => n + w, 0);

/** A seeded PRNG (mulberry32): the same mix on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick(rand: () => number): Record<string, unknown> {
  let r = rand() * TOTAL_WEIGHT;
  for (const [w, call] of MENU) {
    r -= w;
    if (r < 0) return call;
  }
  return MENU[0][1];
}

/** `gc()` without restarting node with --expose-gc (node --test runs this file as is). */
function collectGarbage(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

async function settledHeap(gc: () => void): Promise<number> {
  // Between collections, a turn of the event loop: callbacks that free memory (closed sockets,
  // finalizers) run before the next one.
  for (let i = 0; i < 4; i++) {
    gc();
    await setImmediate();
  }
  return process.memoryUsage().heapUsed;
}

/** `centralmcp_router_calls_total` by `entrypoint/backend/status`. */
async function callsTotal(metricsUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^centralmcp_router_calls_total\{(.*)\} (\d+(?:\.\d+)?)$/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    counts.set(`${labels.entrypoint}/${labels.backend}/${labels.status}`, Number(m[2]));
  }
  return counts;
}

/** One answered call as the ledger books it. */
interface Booked {
  entrypoint: 'invoke_read_tool' | 'batch';
  tool: string;
  server: string | null;
  status: string;
  error?: string;
}

/** An SDK client whose transport records every request id sent and every response id received. */
interface TracedClient {
  client: Client;
  sent: Set<string | number>;
  answered: Map<string | number, number>;
}

async function tracedClient(url: string): Promise<TracedClient> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'ledger', version: '1.0.0' });
  await client.connect(transport);
  const traced: TracedClient = { client, sent: new Set(), answered: new Map() };
  // The handler the client set takes the extra info of the Transport interface, which this class's own type leaves out.
  const deliver: (m: JSONRPCMessage, e?: unknown) => void = transport.onmessage!;
  transport.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
    if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message)) {
      traced.answered.set(message.id, (traced.answered.get(message.id) ?? 0) + 1);
    }
    deliver(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ('method' in message && 'id' in message) traced.sent.add(message.id);
    return send(message, options);
  };
  return traced;
}

describe('the ledger under load', () => {
  const dir = tempDir('centralmcp-ledger-');
  const countFile = (b: string) => join(dir, `${b}.counts`);
  const baselineChildren = childrenOf(process.pid).length;
  const gc = collectGarbage();
  let beta: FaultHttpServer;
  let router: RunningRouter;
  let metricsUrl: string;
  /**
   * At the HTTP backend after the load: open sockets (the router's keep-alive pool, idle sockets
   * included) and requests still unanswered and not closed, which only a hung call can hold.
   */
  const betaAfter = { socketsBefore: NaN, sockets: NaN, pendingRequests: NaN };

  before(async () => {
    beta = await startFaultHttp('beta', { countFile: countFile('beta') });
    router = await startRouter(
      testConfig([
        faultStdioBackend('alpha', { countFile: countFile('alpha') }, { timeoutMs: FAULT_TIMEOUT_MS }),
        faultHttpBackend('beta', beta, { timeoutMs: FAULT_TIMEOUT_MS }),
        faultStdioBackend('gamma', { countFile: countFile('gamma') }, { timeoutMs: FAULT_TIMEOUT_MS }),
      ]),
    );
    metricsUrl = router.url.replace(/\/mcp$/, '/metrics');
  });

  after(async () => {
    await router?.close();
    await beta?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('every call is on the books: clients, backends and metrics agree', async () => {
    const backends = router.app.get(BackendsService);
    const lifecycle = router.app.get(LifecycleService);
    // Warm up (JIT, connection pools, the catalog) before the baselines are taken.
    const warm = await tracedClient(router.url);
    for (let i = 0; i < 200; i++) await warm.client.callTool({ name: 'invoke_read_tool', arguments: { name: 'fast', server: BACKENDS[i % 3] } });
    await warm.client.close();
    const heapBefore = await settledHeap(gc);
    const childrenBefore = childrenOf(process.pid).length;
    const metricsBefore = await callsTotal(metricsUrl);
    const receivedBefore = Object.fromEntries(BACKENDS.map((b) => [b, readCounts(countFile(b))]));
    betaAfter.socketsBefore = (await fixtureStats(beta)).openSockets;

    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => tracedClient(router.url)));
    const booked: Booked[] = [];
    const shapeErrors: string[] = [];
    const started = Date.now();

    const runClient = async (traced: TracedClient, seed: number) => {
      const rand = random(seed);
      for (let r = 0; r < REQUESTS_PER_CLIENT; r++) {
        if (rand() < 0.5) {
          const call = pick(rand);
          const result = await traced.client.callTool({ name: 'invoke_read_tool', arguments: call });
          const a = result.structuredContent as SingleAnswer;
          booked.push({ entrypoint: 'invoke_read_tool', tool: String(call.name), server: a.server, status: a.status, error: a.error?.message });
          answeredRequests++;
        } else {
          const calls = Array.from({ length: 1 + Math.floor(rand() * 12) }, () => pick(rand));
          const result = await traced.client.callTool({ name: 'invoke_read_tool_batch', arguments: { calls } });
          const data = result.structuredContent as BatchAnswer;
          answeredRequests++;
          if (!Array.isArray(data.results) || data.results.length !== calls.length) {
            shapeErrors.push(`batch of ${calls.length} answered ${JSON.stringify(data).slice(0, 200)}`);
            continue;
          }
          data.results.forEach((item, i) => {
            if (item.index !== i || item.id !== String(i) || item.tool !== calls[i].name) shapeErrors.push(`entry ${i}: ${JSON.stringify(item).slice(0, 200)}`);
            booked.push({ entrypoint: 'batch', tool: String(calls[i].name), server: item.server, status: item.status, error: item.error });
          });
        }
      }
    };
    // Crashes at set points of the clients' progress (not of the clock, so the clients are still
    // busy whatever the box's speed), through the router and on the books like every other call;
    // three, so the backoff stays short (five within a minute would be a crash loop held at 30 s).
    let answeredRequests = 0;
    const chaos = async () => {
      const traced = await tracedClient(router.url);
      for (const share of [0.1, 0.4, 0.7]) {
        await waitFor(() => answeredRequests >= share * CLIENTS * REQUESTS_PER_CLIENT, 600_000, `${share * 100}% of the requests answered`);
        const result = await traced.client.callTool({ name: 'invoke_read_tool', arguments: { name: 'crash', server: 'gamma' } });
        const a = result.structuredContent as SingleAnswer;
        booked.push({ entrypoint: 'invoke_read_tool', tool: 'crash', server: a.server, status: a.status, error: a.error?.message });
      }
      return traced;
    };
    const [chaosClient] = await Promise.all([chaos(), ...clients.map((c, i) => runClient(c, 1000 + i))]);
    const elapsed = Date.now() - started;
    const allClients = [...clients, chaosClient];

    // Every request answered exactly once; every batch one entry per call, in order.
    assert.deepEqual(shapeErrors, []);
    for (const traced of allClients) {
      for (const id of traced.sent) assert.equal(traced.answered.get(id), 1, `request ${String(id)} answered ${traced.answered.get(id) ?? 0} times`);
      for (const id of traced.answered.keys()) assert.ok(traced.sent.has(id), `answer to a request never sent: ${String(id)}`);
    }
    const statuses = new Map<string, number>();
    for (const b of booked) statuses.set(b.status, (statuses.get(b.status) ?? 0) + 1);
    const gammaErrors = new Map<string, number>();
    for (const x of booked)
      if (x.server === 'gamma' && x.status === 'error') gammaErrors.set(`${x.tool}: ${x.error}`, (gammaErrors.get(`${x.tool}: ${x.error}`) ?? 0) + 1);
    process.stdout.write(`# ledger: gamma errors ${JSON.stringify(Object.fromEntries(gammaErrors))}\n`);
    process.stdout.write(
      `# ledger: ${booked.length} calls by ${CLIENTS} clients in ${elapsed} ms (${Math.round((booked.length * 1000) / elapsed)} calls/s): ${JSON.stringify(Object.fromEntries(statuses))}\n`,
    );

    // What the backends received, per tool, against what the clients saw.
    const receivedNow = Object.fromEntries(BACKENDS.map((b) => [b, readCounts(countFile(b))]));
    const received = (b: string, tool: string) => (receivedNow[b][`tools/call:${tool}`] ?? 0) - (receivedBefore[b][`tools/call:${tool}`] ?? 0);
    const tally = (b: string, tool: string, pred: (x: Booked) => boolean) => booked.filter((x) => x.server === b && x.tool === tool && pred(x)).length;
    const notDispatched = (x: Booked) => x.status === 'error' && /is not connected/.test(x.error ?? '');
    for (const b of ['alpha', 'beta'] as const) {
      for (const tool of new Set(MENU.map(([, c]) => String(c.name)))) {
        const dispatched = tally(b, tool, (x) => x.status === 'ok' || x.status === 'error');
        assert.equal(tally(b, tool, notDispatched), 0, `${b} never went down`);
        assert.equal(received(b, tool), dispatched, `${b}:${tool}: received ${received(b, tool)}, clients saw ${dispatched} ok/error answers`);
      }
      assert.equal(received(b, 'purge_cache'), 0, 'a blocked call never reaches its backend');
    }
    for (const tool of ['fast', 'crash']) {
      // A call written to gamma as it dies may or may not have been read before it died, and fails
      // either way: an ok answer was received for sure, a failed dispatch only perhaps.
      const certain = tally('gamma', tool, (x) => x.status === 'ok');
      const maybe = tally('gamma', tool, (x) => x.status === 'error' && !notDispatched(x));
      const got = received('gamma', tool);
      assert.ok(
        got >= certain && got <= certain + maybe,
        `gamma:${tool}: received ${got}, expected ${certain}..${certain + maybe}; errors ${JSON.stringify(Object.fromEntries(gammaErrors))}`,
      );
    }
    assert.ok(tally('gamma', 'fast', (x) => x.status === 'ok') > 0 && tally('gamma', 'fast', notDispatched) > 0, 'gamma served, went down and came back');

    // The router's own books: calls_total deltas per entrypoint, backend and status.
    const metricsAfter = await callsTotal(metricsUrl);
    const expected = new Map<string, number>();
    for (const b of booked) {
      const label = `${b.entrypoint}/${b.server !== null && (BACKENDS as readonly string[]).includes(b.server) ? b.server : 'none'}/${b.status}`;
      expected.set(label, (expected.get(label) ?? 0) + 1);
    }
    const deltas = new Map(
      [...metricsAfter].map(([k, v]) => [k, v - (metricsBefore.get(k) ?? 0)]).filter(([, v]) => (v as number) !== 0) as [string, number][],
    );
    assert.deepEqual(
      Object.fromEntries([...deltas].sort()),
      Object.fromEntries([...expected].sort()),
      "centralmcp_router_calls_total deltas equal the clients' counts",
    );

    // Afterwards: nothing in flight, the backends' processes back to their count, heap near baseline.
    await Promise.all(allClients.map((c) => c.client.close()));
    assert.equal(lifecycle.inFlight, 0, 'no /mcp request in flight');
    await waitFor(() => backends.states().every((s) => s.status === 'up'), 60_000, 'every backend up');
    await waitFor(() => childrenOf(process.pid).length === childrenBefore, 60_000, 'backend processes back to their count');
    booked.length = 0;
    // A timed-out call's request is aborted at the backend's timeoutMs + 1 s; one never aborted
    // would stay open for undici's 300 s headers timeout, far past this ceiling.
    let stats = await fixtureStats(beta);
    await until(async () => (stats = await fixtureStats(beta)).pendingRequests === 0, 60_000, 'no request pending at the HTTP backend').catch(() => undefined);
    betaAfter.sockets = stats.openSockets;
    betaAfter.pendingRequests = stats.pendingRequests;
    process.stdout.write(
      `# ledger: at the HTTP backend: ${betaAfter.socketsBefore} sockets before, ${stats.openSockets} after (the pool, idle ones included), ${stats.pendingRequests} requests still pending\n`,
    );
    const heapAfter = await settledHeap(gc);
    process.stdout.write(`# ledger: post-GC heap ${(heapBefore / 1048576).toFixed(1)} MiB before, ${(heapAfter / 1048576).toFixed(1)} MiB after\n`);
    assert.ok(heapAfter - heapBefore < HEAP_SLACK_BYTES, `post-GC heap grew ${((heapAfter - heapBefore) / 1048576).toFixed(1)} MiB`);
  });

  test('no request to the HTTP backend is left hanging by calls that timed out', () => {
    // Before the router aborted timed-out requests, 93 sockets stayed open here, each holding a
    // hung request for undici's 300 s headers timeout.
    assert.equal(betaAfter.pendingRequests, 0, `${betaAfter.pendingRequests} requests still open at the backend`);
    // The keep-alive pool may grow to the concurrency of the load (20 clients) plus the sessions' own.
    assert.ok(betaAfter.sockets <= betaAfter.socketsBefore + CLIENTS + 15, `${betaAfter.socketsBefore} sockets before, ${betaAfter.sockets} after`);
  });

  test('after close the child process count is back to its baseline', async () => {
    await router.close();
    await beta.stop();
    await waitFor(() => childrenOf(process.pid).length <= baselineChildren, 60_000, 'children back to baseline');
  });
});

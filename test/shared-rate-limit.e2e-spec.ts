import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { maxInWindow, startCountingBackend, type CountingBackend } from './support/counting-backend';
import { startRedisServer, type RedisServer } from './support/redis-server';
import { startRouterProcess, type RouterProcess } from './support/router-process';
import { tempDir } from './support/router';

/**
 * N replicas behave as one router. Two router processes on two ports share one Redis
 * and one backend limited to 20 calls/s with a burst of 20; 200 calls split evenly across them
 * must take at least (200 - 20) / 20 = 9 s, and the backend must never see more than the burst
 * plus 20 calls in any second. With the memory store the same run shows the problem this solves:
 * each replica allows the whole rate, so the backend sees twice as much.
 */

const RATE = 20;
const BURST = 20;
const CALLS = 200;
/**
 * Calls in flight per router: each client sends its next call when one is answered, as agents do.
 * Enough to keep the shared bucket queueing (20 in flight = the burst), few enough that a flood of
 * requests does not hold the first ones back while later ones go (which the backend would see as
 * a bunch, whatever the bucket granted).
 */
const IN_FLIGHT_PER_ROUTER = 10;

let redis: RedisServer;
let backend: CountingBackend;
before(async () => {
  redis = await startRedisServer();
  backend = await startCountingBackend();
});
after(async () => {
  await backend?.stop();
  await redis?.stop();
});

function configFile(store: 'memory' | 'redis'): string {
  const dir = tempDir('centralmcp-shared-');
  const file = join(dir, 'config.yaml');
  writeFileSync(
    file,
    [
      'backends:',
      '  counter:',
      '    transport: http',
      `    url: ${backend.url}`,
      `    rateLimit: { ratePerSecond: ${RATE}, burst: ${BURST} }`,
      ...(store === 'redis'
        ? ['rateLimit:', '  store: redis', '  redis:', '    url: "${REDIS_URL}"', `    keyPrefix: "e2e-${process.pid}-${Date.now()}:"`, '    replicas: 2']
        : []),
      `audit: { sink: file, path: ${JSON.stringify(join(dir, 'audit.jsonl'))} }`,
      '',
    ].join('\n'),
  );
  return file;
}

interface Run {
  seconds: number;
  maxPerSecond: number;
  statuses: Record<string, number>;
}

/** Starts two routers, sends CALLS calls, exactly half to each, and reads the backend's view. */
async function run(store: 'memory' | 'redis'): Promise<Run> {
  const file = configFile(store);
  const routers: RouterProcess[] = await Promise.all([0, 1].map(() => startRouterProcess(file, { REDIS_URL: redis.url })));
  const clients: Client[] = [];
  try {
    for (const router of routers) {
      const readiness = (await (await fetch(`${router.base}/health/ready`)).json()) as { details: Record<string, { calls?: string }> };
      assert.equal(readiness.details.rateLimitStore?.calls, store === 'redis' ? 'shared' : 'local', JSON.stringify(readiness));
      const client = new Client({ name: 'shared-rate-limit-e2e', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(router.url)));
      clients.push(client);
    }
    // Warm up each router (its first calls pay for JIT and new sockets, which would bunch the
    // arrivals that follow), then let the bucket fill again: the run starts on a full burst.
    for (const client of clients) {
      for (let i = 0; i < 3; i++) await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'tick', server: 'counter' } });
    }
    await sleep(1_000);
    const received = (await backend.arrivals()).length;
    const statuses: Record<string, number> = {};
    const sent = clients.map(() => 0);
    const worker = async (client: Client, i: number) => {
      while (sent[i] < CALLS / clients.length) {
        sent[i]++;
        const answer = await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'tick', server: 'counter' } }, undefined, { timeout: 60_000 });
        const status = String((answer.structuredContent as { status?: unknown } | undefined)?.status);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    };
    const started = performance.now();
    await Promise.all(clients.flatMap((client, i) => Array.from({ length: IN_FLIGHT_PER_ROUTER }, () => worker(client, i))));
    const seconds = (performance.now() - started) / 1000;
    const arrivals = (await backend.arrivals()).slice(received);
    assert.equal(arrivals.length, CALLS, 'every call reached the backend exactly once');
    return { seconds, maxPerSecond: maxInWindow(arrivals, 1_000), statuses };
  } finally {
    await Promise.allSettled(clients.map((c) => c.close()));
    await Promise.all(routers.map((r) => r.stop()));
  }
}

describe('two replicas sharing one Redis', () => {
  test('200 calls across two routers: the backend gets the configured rate, not twice it', async () => {
    const shared = await run('redis');
    const local = await run('memory');
    // Visible in the test output: the figures the assertions are about.
    console.log(JSON.stringify({ redis: shared, memory: local }));
    assert.deepEqual(shared.statuses, { ok: CALLS });
    assert.deepEqual(local.statuses, { ok: CALLS });
    const floor = (CALLS - BURST) / RATE;
    assert.ok(shared.seconds >= floor, `shared store: ${CALLS} calls in ${shared.seconds.toFixed(2)} s, under ${floor} s`);
    assert.ok(shared.maxPerSecond <= BURST + RATE, `shared store: ${shared.maxPerSecond} calls in one second`);
    // Each replica allows the whole rate with the memory store: about half the time, twice the rate.
    assert.ok(local.maxPerSecond > BURST + RATE, `memory store: at most ${local.maxPerSecond} calls in one second`);
    assert.ok(local.seconds < shared.seconds, `memory store ${local.seconds} s, shared ${shared.seconds} s`);
  });
});

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startCountingBackend, type CountingBackend } from './support/counting-backend';
import { startRedisServer, type RedisServer } from './support/redis-server';
import { startRouterProcess, type RouterProcess } from './support/router-process';
import { tempDir } from './support/router';

/**
 * N replicas behave as one router. Two router processes on two ports share one Redis and one
 * backend whose bucket holds 20 tokens and refills so slowly (one token in 1,000 s) that none
 * comes back during the test, and a call finds a token at once or fails (maxWaitMs 0). 20 calls
 * to each router: with the shared store the two draw on one bucket, so 20 reach the backend and
 * 20 are refused; with the memory store each replica has a bucket of its own, so all 40 reach it
 * (the problem the shared store solves). Counts, not a clock: how fast the calls go changes
 * nothing. The rate arithmetic itself is the domain's and the Redis script's
 * (src/rate-limit/*.spec.ts); their cost is BENCHMARKS.md's section 6.
 */

const BURST = 20;
const RATE = 0.001;
const CALLS_PER_ROUTER = 20;
/** Calls in flight per router, as agents send them. */
const IN_FLIGHT_PER_ROUTER = 5;

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
      `    rateLimit: { ratePerSecond: ${RATE}, burst: ${BURST}, maxWaitMs: 0 }`,
      ...(store === 'redis'
        ? ['rateLimit:', '  store: redis', '  redis:', '    url: "${REDIS_URL}"', `    keyPrefix: "e2e-${process.pid}-${randomUUID()}:"`, '    replicas: 2']
        : []),
      `audit: { sink: file, path: ${JSON.stringify(join(dir, 'audit.jsonl'))} }`,
      '',
    ].join('\n'),
  );
  return file;
}

interface Run {
  /** Calls the backend received. */
  received: number;
  statuses: Record<string, number>;
  errors: string[];
}

/** Starts two routers, sends CALLS_PER_ROUTER calls to each, and reads the backend's view. */
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
    const before = (await backend.arrivals()).length;
    const statuses: Record<string, number> = {};
    const errors = new Set<string>();
    const sent = clients.map(() => 0);
    const worker = async (client: Client, i: number) => {
      while (sent[i] < CALLS_PER_ROUTER) {
        sent[i]++;
        const answer = await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'tick', server: 'counter' } }, undefined, { timeout: 600_000 });
        const data = answer.structuredContent as { status?: unknown; error?: { message?: string } } | undefined;
        const status = String(data?.status);
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (data?.error?.message !== undefined) errors.add(data.error.message);
      }
    };
    await Promise.all(clients.flatMap((client, i) => Array.from({ length: IN_FLIGHT_PER_ROUTER }, () => worker(client, i))));
    return { received: (await backend.arrivals()).length - before, statuses, errors: [...errors] };
  } finally {
    await Promise.allSettled(clients.map((c) => c.close()));
    await Promise.all(routers.map((r) => r.stop()));
  }
}

describe('two replicas sharing one Redis', () => {
  test('20 calls to each of two routers on one bucket of 20: the shared store lets 20 through, not 40', async () => {
    const shared = await run('redis');
    const local = await run('memory');
    // Visible in the test output: the figures the assertions are about.
    console.log(JSON.stringify({ redis: shared, memory: local }));
    assert.deepEqual(shared.statuses, { ok: BURST, error: 2 * CALLS_PER_ROUTER - BURST });
    assert.deepEqual(shared.errors, [`rate limit: no token within 0 ms`]);
    assert.equal(shared.received, BURST, 'the backend received exactly the calls answered ok');
    // Each replica allows the whole bucket with the memory store: twice as many calls get through.
    assert.deepEqual(local.statuses, { ok: 2 * CALLS_PER_ROUTER });
    assert.equal(local.received, 2 * CALLS_PER_ROUTER);
  });
});

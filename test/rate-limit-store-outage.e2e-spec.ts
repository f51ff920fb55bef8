import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RateLimitFailPolicy } from '../src/config/config.types';
import { until, waitFor } from './support/backend-processes';
import { httpBackend } from './support/backend-servers';
import { startCountingBackend, type CountingBackend } from './support/counting-backend';
import { scrapeMetrics } from './support/metrics';
import { startRedisServer, type RedisServer } from './support/redis-server';
import { startRouter, testConfig, type RunningRouter } from './support/router';

/**
 * Redis killed under load. Two routers share one Redis, one failing open (the default)
 * and one failing closed. While Redis is down no call hangs past its deadline; the open router
 * keeps serving at its share of the rate, the closed one answers `error`; both say so in their
 * readiness detail and metrics, and both share the buckets again once Redis is back. The ledger:
 * every call is answered once, and the backend received exactly the calls answered `ok`.
 */

/** The longest a call may wait for a token. */
const MAX_WAIT_MS = 10_000;
/** How long the router may spend reaching Redis before it falls back. */
const CONNECT_TIMEOUT_MS = 1_000;
/**
 * What the router promises a call, whatever Redis does: a token or a refusal within the wait it
 * may grant plus the time to give up on Redis. A call past this deadline (with a margin of five)
 * hung.
 */
const DEADLINE_MS = 5 * (MAX_WAIT_MS + CONNECT_TIMEOUT_MS);
const WORKERS_PER_ROUTER = 4;
/** Answers each side must see before the next step: the load is running, not merely started. */
const PROGRESS = 10;

let redis: RedisServer;
let backend: CountingBackend;
const routers: Record<RateLimitFailPolicy, RunningRouter | undefined> = { open: undefined, closed: undefined };

before(async () => {
  redis = await startRedisServer();
  backend = await startCountingBackend();
  for (const fail of ['open', 'closed'] as const) {
    routers[fail] = await startRouter(
      testConfig([httpBackend('counter', backend.url, { rateLimit: { ratePerSecond: 20, burst: 20, maxWaitMs: MAX_WAIT_MS } })], {
        rateLimitStore: {
          kind: 'redis',
          url: redis.url,
          keyPrefix: `outage-${process.pid}:`,
          connectTimeoutMs: CONNECT_TIMEOUT_MS,
          commandTimeoutMs: 200,
          fail,
          replicas: 2,
        },
      }),
    );
  }
});
after(async () => {
  await Promise.allSettled(Object.values(routers).flatMap((r) => (r ? [r.close()] : [])));
  await backend?.stop();
  await redis?.stop();
});

interface Tally {
  statuses: Record<string, number>;
  errors: Set<string>;
  slowestMs: number;
}

/** Closed-loop load on one router until `stop()` says so; every call must answer before its deadline. */
function load(client: Client, tally: Tally, stop: () => boolean): Promise<void[]> {
  const worker = async () => {
    while (!stop()) {
      const started = performance.now();
      const answer = await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'tick', server: 'counter' } }, undefined, {
        timeout: DEADLINE_MS,
      });
      tally.slowestMs = Math.max(tally.slowestMs, performance.now() - started);
      const data = answer.structuredContent as { status: string; error?: unknown };
      tally.statuses[data.status] = (tally.statuses[data.status] ?? 0) + 1;
      if (data.status !== 'ok') tally.errors.add(JSON.stringify(data.error));
    }
  };
  return Promise.all(Array.from({ length: WORKERS_PER_ROUTER }, worker));
}

async function storeDetail(router: RunningRouter): Promise<{ state: string; calls: string }> {
  const body = (await (await fetch(router.url.replace(/\/mcp$/, '/health/ready'))).json()) as {
    status: string;
    details: { rateLimitStore: { state: string; calls: string } };
  };
  assert.equal(body.status, 'ok', 'a Redis outage never takes the router out of service');
  return body.details.rateLimitStore;
}

async function detailBecomes(router: RunningRouter, calls: string): Promise<void> {
  await until(async () => (await storeDetail(router)).calls === calls, 60_000, `readiness saying calls: ${calls}`);
}

/** Answers of `status` so far in a tally. */
const answers = (tally: Tally, status: string) => tally.statuses[status] ?? 0;

describe('the shared store goes away under load and comes back', () => {
  test('fail open keeps serving at the share, fail closed answers error; nothing hangs, nothing is lost', async () => {
    const open = routers.open!;
    const closed = routers.closed!;
    for (const router of [open, closed]) assert.deepEqual(await storeDetail(router), { status: 'up', store: 'redis', state: 'up', calls: 'shared' });
    const received = (await backend.arrivals()).length;
    const tallies = { open: { statuses: {}, errors: new Set<string>(), slowestMs: 0 }, closed: { statuses: {}, errors: new Set<string>(), slowestMs: 0 } };
    let stopped = false;
    const running = Promise.all([load(await open.connect(), tallies.open, () => stopped), load(await closed.connect(), tallies.closed, () => stopped)]);
    try {
      // Both routers are serving through the shared store before it goes away.
      await waitFor(() => answers(tallies.open, 'ok') >= PROGRESS && answers(tallies.closed, 'ok') >= PROGRESS, 60_000, 'both routers serving');
      await redis.kill();
      await detailBecomes(open, 'local share 1/2 (fail open)');
      await detailBecomes(closed, 'refused (fail closed)');
      const openBefore = answers(tallies.open, 'ok');
      const closedBefore = answers(tallies.closed, 'error');
      // The open router kept answering ok; the closed one answered error while Redis was away.
      await waitFor(
        () => answers(tallies.open, 'ok') >= openBefore + PROGRESS && answers(tallies.closed, 'error') >= closedBefore + PROGRESS,
        60_000,
        'fail open serving and fail closed refusing during the outage',
      );
      const during = { open: await scrapeMetrics(open), closed: await scrapeMetrics(closed) };
      assert.equal(during.open.get('centralmcp_router_rate_limit_store_up{store="redis"}'), 0);
      assert.ok(during.open.get('centralmcp_router_rate_limit_store_fallbacks_total{outcome="local"}')! > 0);
      assert.ok(during.closed.get('centralmcp_router_rate_limit_store_fallbacks_total{outcome="refused"}')! > 0);
      await redis.restart();
      await detailBecomes(open, 'shared');
      await detailBecomes(closed, 'shared');
      const okBeforeRecovery = answers(tallies.closed, 'ok');
      await waitFor(() => answers(tallies.closed, 'ok') >= okBeforeRecovery + PROGRESS, 60_000, 'fail closed serving again');
      const recovered = await scrapeMetrics(open);
      assert.equal(recovered.get('centralmcp_router_rate_limit_store_up{store="redis"}'), 1);
    } finally {
      stopped = true;
      await running;
    }
    // The ledger: every call answered once (the loops counted each answer), and exactly the ok
    // ones reached the backend: a refused call never did, a granted one never twice.
    const answered = (t: Tally) => Object.values(t.statuses).reduce((a, b) => a + b, 0);
    const ok = (tallies.open.statuses as Record<string, number>).ok + ((tallies.closed.statuses as Record<string, number>).ok ?? 0);
    assert.equal((await backend.arrivals()).length - received, ok);
    assert.deepEqual(Object.keys(tallies.open.statuses), ['ok'], [...tallies.open.errors].join('\n'));
    assert.deepEqual(Object.keys(tallies.closed.statuses).sort(), ['error', 'ok']);
    assert.deepEqual([...tallies.closed.errors], [JSON.stringify({ code: 'rate_limited', message: 'rate limit: the shared rate-limit store is unavailable' })]);
    for (const [policy, tally] of Object.entries(tallies)) {
      assert.ok(tally.slowestMs < DEADLINE_MS, `${policy}: a call took ${Math.round(tally.slowestMs)} ms`);
      console.log(JSON.stringify({ policy, answered: answered(tally), statuses: tally.statuses, slowestMs: Math.round(tally.slowestMs) }));
    }
  });
});

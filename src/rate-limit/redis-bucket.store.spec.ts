import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Test } from '@nestjs/testing';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { waitFor } from '../../test/support/backend-processes';
import { httpBackend } from '../../test/support/backend-servers';
import { startRedisServer, type RedisServer } from '../../test/support/redis-server';
import { testConfig } from '../../test/support/router';
import { systemClock } from '../common/clock';
import { ConfigModule } from '../config/config.module';
import type { RateLimitSettings, RedisStoreConfig } from '../config/config.types';
import { RateLimitModule } from './rate-limit.module';
import { RateLimitService } from './rate-limit.service';
import { reserveAll, type Bucket } from './domain/token-bucket';
import type { BucketRequest } from './rate-limit.store';
import { SLEEP } from './rate-limit.tokens';
import { RedisBucketClient } from './redis-bucket.client';
import { RedisBucketStore } from './redis-bucket.store';

/** The shared store against a real redis-server that this file starts and stops. */

let redis: RedisServer;
let raw: Redis;
let prefixCount = 0;
const cleanups: (() => unknown)[] = [];

before(async () => {
  redis = await startRedisServer();
  raw = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => 50 });
  raw.on('error', () => {});
  await raw.connect();
});
after(async () => {
  raw.disconnect();
  await redis.stop();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A config with its own key prefix, so tests never see each other's buckets. */
function storeConfig(extra: Partial<RedisStoreConfig> = {}): RedisStoreConfig {
  return {
    url: redis.url,
    keyPrefix: `test-${process.pid}-${++prefixCount}:`,
    connectTimeoutMs: 1_000,
    commandTimeoutMs: 200,
    fail: 'open',
    replicas: 1,
    ...extra,
  };
}

async function openStore(config: RedisStoreConfig): Promise<RedisBucketStore> {
  const store = new RedisBucketStore(config, systemClock);
  await store.onModuleInit();
  cleanups.push(() => store.onModuleDestroy());
  return store;
}

const bucket = (key: string, ratePerSecond: number, burst: number, maxWaitMs: number): BucketRequest => ({
  key,
  params: { ratePerSecond, burst },
  maxWaitMs,
});

async function tokensOf(config: RedisStoreConfig, key: string): Promise<number | null> {
  const value = await raw.hget(config.keyPrefix + key, 't');
  return value === null ? null : Number(value);
}

describe('RedisBucketClient: the Lua script', () => {
  test('takes a token from every bucket of a call or from none, and says how long to wait', async () => {
    const config = storeConfig();
    const client = new RedisBucketClient(config);
    await client.connect();
    cleanups.push(() => client.close());
    const wide = bucket('wide', 1, 2, 0);
    const narrow = bucket('narrow', 1, 1, 0);
    assert.deepEqual(await client.reserveAll([wide, narrow], 1), { ok: true, waitsMs: [0, 0] });
    assert.equal(await tokensOf(config, 'wide'), 1);
    assert.equal(await tokensOf(config, 'narrow'), 0);
    const refused = await client.reserveAll([wide, narrow], 1);
    assert.ok(!refused.ok && refused.reason === 'wait_too_long');
    assert.equal(refused.index, 1);
    assert.ok(refused.waitMs > 0 && refused.waitMs <= 1_000, `waitMs ${refused.waitMs}`);
    // Nothing written: the first bucket kept its token (no refill written either).
    assert.equal(await tokensOf(config, 'wide'), 1);
  });

  test('queues callers on the server clock and expires each bucket once it is full again', async () => {
    const config = storeConfig();
    const client = new RedisBucketClient(config);
    await client.connect();
    cleanups.push(() => client.close());
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await client.reserveAll([bucket('queue', 10, 5, 10_000)], 1);
      assert.ok(r.ok);
      waits.push(r.waitsMs[0]);
    }
    assert.deepEqual(waits.slice(0, 5), [0, 0, 0, 0, 0]);
    // The 6th..8th wait for the 1st..3rd token to come (100 ms apart), less what time has passed.
    for (const [k, wait] of waits.slice(5).entries()) {
      assert.ok(wait <= (k + 1) * 100 && wait > k * 100, `wait ${k + 6}: ${wait} ms`);
    }
    // Full again after (5 - (-3)) / 10 s = 800 ms; the key lives that long plus a second's margin.
    const ttl = await raw.pttl(`${config.keyPrefix}queue`);
    assert.ok(ttl > 0 && ttl <= 1_800, `pttl ${ttl}`);
    const quick = bucket('quick', 1_000, 1, 0);
    assert.deepEqual(await client.reserveAll([quick], 1), { ok: true, waitsMs: [0] });
    const quickTtl = await raw.pttl(`${config.keyPrefix}quick`);
    assert.ok(quickTtl > 0 && quickTtl <= 1_001, `pttl ${quickTtl}`);
  });
});

describe('RedisBucketClient and the domain agree', () => {
  test('random calls over shared buckets: the same grants, refusals and waits as reserveAll', async () => {
    const client = new RedisBucketClient(storeConfig());
    await client.connect();
    cleanups.push(() => client.close());
    // A rate so slow that the time this test takes, even on a busy machine, refills no whole token
    // (one per 1,000 s): grants and refusals are then deterministic, and waits up to the time
    // passed (1 ms of it is 1 ms of wait at most).
    const RATE = 0.000001;
    const callArb = fc.record({
      buckets: fc.uniqueArray(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 3 }),
      // 0: only what is in the bucket; else a wait long enough for any queue this test builds.
      unbounded: fc.boolean(),
    });
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 4, maxLength: 4 }),
        fc.array(callArb, { minLength: 1, maxLength: 15 }),
        async (bursts, calls) => {
          round++;
          const started = performance.now();
          const model = new Map<number, Bucket>();
          for (const call of calls) {
            const requests = call.buckets.map((b) => bucket(`agree-${round}-${b}`, RATE, bursts[b], call.unbounded ? 1e12 : 0));
            const expected = reserveAll(
              call.buckets.map((b, i) => ({ bucket: model.get(b), params: requests[i].params, maxWaitMs: requests[i].maxWaitMs })),
              1,
              0,
            );
            const actual = await client.reserveAll(requests, 1);
            const slack = performance.now() - started + 1;
            assert.equal(actual.ok, expected.ok);
            if (expected.ok && actual.ok) {
              expected.buckets.forEach((state, i) => model.set(call.buckets[i], state));
              expected.waitsMs.forEach((wait, i) => assert.ok(Math.abs(actual.waitsMs[i] - wait) <= slack, `${actual.waitsMs[i]} vs ${wait}`));
            } else if (!expected.ok && !actual.ok && actual.reason === 'wait_too_long') {
              assert.equal(actual.index, expected.index);
              assert.ok(Math.abs(actual.waitMs - expected.waitMs) <= slack, `${actual.waitMs} vs ${expected.waitMs}`);
            }
          }
        },
      ),
      { seed: 20_261_201, numRuns: 25 },
    );
  });
});

describe('RedisBucketStore: the failure policy', () => {
  test('fail open: Redis killed, calls take the replica share locally; Redis back, shared again', async () => {
    const config = storeConfig({ replicas: 2 });
    const store = await openStore(config);
    const limit = [bucket('open', 2, 4, 10_000)];
    assert.deepEqual(store.status().up, true);
    assert.deepEqual(await store.reserveAll(limit, 1), { ok: true, waitsMs: [0] });
    await redis.kill();
    try {
      // The share: burst 4 / 2 replicas = 2 at once, then 2 / 2 = 1 per second.
      const local = [];
      const started = performance.now();
      for (let i = 0; i < 3; i++) local.push(await store.reserveAll(limit, 1));
      // The local bucket refilled for as long as the three took (a busy machine makes that long).
      const took = performance.now() - started;
      assert.deepEqual(local.slice(0, 2), [
        { ok: true, waitsMs: [0] },
        { ok: true, waitsMs: [0] },
      ]);
      const third = local[2];
      assert.ok(third.ok && third.waitsMs[0] >= 1_000 - took - 1 && third.waitsMs[0] <= 1_000, `${JSON.stringify(third)} after ${took} ms`);
      assert.deepEqual(store.status(), { store: 'redis', up: false, fallbacks: { local: 3, refused: 0 }, policy: { fail: 'open', replicas: 2 } });
    } finally {
      await redis.restart();
    }
    await waitFor(() => store.status().up, 10_000, 'the store to reconnect');
    // The restarted Redis persisted nothing: a full shared bucket of 4 again.
    for (let i = 0; i < 4; i++) assert.deepEqual(await store.reserveAll(limit, 1), { ok: true, waitsMs: [0] });
    assert.ok((await tokensOf(config, 'open'))! < 0.5, 'the four tokens came from Redis');
    assert.equal(store.status().fallbacks.local, 3);
  });

  test('fail closed: Redis killed, calls are refused as store_unavailable and take no token', async () => {
    const config = storeConfig({ fail: 'closed' });
    const store = await openStore(config);
    await redis.kill();
    try {
      assert.deepEqual(await store.reserveAll([bucket('closed', 1, 1, 0)], 1), { ok: false, reason: 'store_unavailable' });
      assert.deepEqual(store.status().fallbacks, { local: 0, refused: 1 });
    } finally {
      await redis.restart();
    }
    await waitFor(() => store.status().up, 10_000, 'the store to reconnect');
    assert.deepEqual(await store.reserveAll([bucket('closed', 1, 1, 0)], 1), { ok: true, waitsMs: [0] });
  });

  test('a Redis that hangs costs one commandTimeoutMs, then calls skip it until it answers again', async () => {
    const config = storeConfig({ commandTimeoutMs: 100 });
    const store = await openStore(config);
    redis.pause();
    try {
      const first = await store.reserveAll([bucket('hang', 100, 100, 0)], 1);
      assert.deepEqual(first, { ok: true, waitsMs: [0] });
      assert.equal(store.status().up, false);
      assert.deepEqual(await store.reserveAll([bucket('hang', 100, 100, 0)], 1), { ok: true, waitsMs: [0] });
      assert.equal(store.status().fallbacks.local, 2);
    } finally {
      redis.resume();
    }
    // Past the skip window, the next call tries Redis again.
    await sleep(1_100);
    assert.deepEqual(await store.reserveAll([bucket('hang', 100, 100, 0)], 1), { ok: true, waitsMs: [0] });
    assert.equal(store.status().up, true);
  });

  test('a Redis that is not there at boot does not stop the router: the policy applies from the start', async () => {
    const config = storeConfig({ url: 'redis://127.0.0.1:9', connectTimeoutMs: 500 });
    const store = await openStore(config);
    assert.equal(store.status().up, false);
    assert.deepEqual(await store.reserveAll([bucket('boot', 1, 1, 0)], 1), { ok: true, waitsMs: [0] });
    assert.deepEqual(store.status().fallbacks, { local: 1, refused: 0 });
  });
});

describe('RateLimitService on the Redis store', () => {
  test('a call that would exceed the principal bucket takes no token from the backend bucket', async () => {
    const config = storeConfig();
    const limit = (ratePerSecond: number, burst: number, maxWaitMs: number): RateLimitSettings => ({ ratePerSecond, burst, maxWaitMs });
    const moduleRef = await Test.createTestingModule({
      imports: [
        ConfigModule.forRoot(
          testConfig([httpBackend('files', 'http://127.0.0.1:9/mcp', { rateLimit: limit(0.01, 3, 0) })], {
            principalRateLimit: limit(0.01, 1, 0),
            rateLimitStore: { kind: 'redis', ...config },
          }),
        ),
        RateLimitModule,
      ],
    })
      .overrideProvider(SLEEP)
      .useValue(async () => {})
      .compile();
    await moduleRef.init();
    cleanups.push(() => moduleRef.close());
    const limits = moduleRef.get(RateLimitService);
    assert.equal((await limits.acquire('files', 'alice')).ok, true);
    assert.equal(await tokensOf(config, 'backend:files'), 2);
    for (let i = 0; i < 5; i++) {
      const refused = await limits.acquire('files', 'alice');
      assert.ok(!refused.ok && refused.reason === 'wait_too_long' && refused.bucket === 'principal', JSON.stringify(refused));
    }
    // Alice's five refused calls left the backend's two tokens where they were.
    assert.ok(Math.abs((await tokensOf(config, 'backend:files'))! - 2) < 0.01);
    assert.equal((await limits.acquire('files', 'bob')).ok, true);
    assert.equal((await limits.acquire('files', 'carol')).ok, true);
    const dave = await limits.acquire('files', 'dave');
    assert.ok(!dave.ok && dave.reason === 'wait_too_long' && dave.bucket === 'backend', JSON.stringify(dave));
    assert.equal(limits.storeStatus().store, 'redis');
  });
});

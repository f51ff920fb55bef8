import 'reflect-metadata';
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { Test } from '@nestjs/testing';
import { httpBackend } from '../../test/support/backend-servers';
import { testConfig } from '../../test/support/router';
import { CLOCK, type Clock } from '../common/clock';
import { ConfigModule } from '../config/config.module';
import type { BackendConfig, RateLimitSettings, RouterConfig } from '../config/config.types';
import { MemoryBucketStore } from './memory-bucket.store';
import { RateLimitModule } from './rate-limit.module';
import { RATE_LIMIT_STORE, type RateLimitStore } from './rate-limit.store';
import { RateLimitService, type RateLimitOutcome } from './rate-limit.service';
import { SLEEP, type Sleep } from './rate-limit.tokens';

/** Fake time: sleeping advances the clock and is recorded, nothing really waits. */
class FakeTime implements Clock {
  nowMs = 1_700_000_000_000;
  readonly slept: number[] = [];
  now(): number {
    return this.nowMs;
  }
  readonly sleep: Sleep = (ms) => {
    this.slept.push(ms);
    this.nowMs += ms;
    return Promise.resolve();
  };
}

const limit = (ratePerSecond: number, burst: number, maxWaitMs = 10_000): RateLimitSettings => ({ ratePerSecond, burst, maxWaitMs });
const backend = (name: string, rateLimit?: RateLimitSettings): BackendConfig => httpBackend(name, 'http://127.0.0.1:9/mcp', rateLimit ? { rateLimit } : {});

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** The real module graph with only the clock and the sleeper faked. */
async function limiter(config: RouterConfig, sleep?: Sleep): Promise<{ limits: RateLimitService; time: FakeTime }> {
  const time = new FakeTime();
  const moduleRef = await Test.createTestingModule({ imports: [ConfigModule.forRoot(config), RateLimitModule] })
    .overrideProvider(CLOCK)
    .useValue(time)
    .overrideProvider(SLEEP)
    .useValue(sleep ?? time.sleep)
    .compile();
  closers.push(() => moduleRef.close());
  return { limits: moduleRef.get(RateLimitService), time };
}

async function limiterWithStore(config: RouterConfig): Promise<{ limits: RateLimitService; time: FakeTime; store: MemoryBucketStore }> {
  const time = new FakeTime();
  const moduleRef = await Test.createTestingModule({ imports: [ConfigModule.forRoot(config), RateLimitModule] })
    .overrideProvider(CLOCK)
    .useValue(time)
    .overrideProvider(SLEEP)
    .useValue(time.sleep)
    .compile();
  closers.push(() => moduleRef.close());
  const store = moduleRef.get<RateLimitStore>(RATE_LIMIT_STORE);
  assert.ok(store instanceof MemoryBucketStore);
  return { limits: moduleRef.get(RateLimitService), time, store };
}

function waitedMs(outcome: RateLimitOutcome): number {
  assert.ok(outcome.ok, `refused: ${JSON.stringify(outcome)}`);
  return outcome.waitedMs;
}

describe('RateLimitService', () => {
  test('without any rateLimit block nothing is limited and nothing sleeps', async () => {
    const { limits, time } = await limiter(testConfig([backend('files')]));
    for (let i = 0; i < 1_000; i++) {
      assert.deepEqual(await limits.acquire(i % 2 === 0 ? 'files' : 'unknown'), { ok: true, waitedMs: 0, waits: [] });
    }
    assert.deepEqual(time.slept, []);
  });

  test('global 5/s burst 5: five go at once, the sixth waits 200 ms, 25 in a row take 4 s', async () => {
    const { limits, time } = await limiter(testConfig([backend('files')], { rateLimit: limit(5, 5) }));
    const start = time.now();
    for (let i = 0; i < 5; i++) {
      assert.deepEqual(await limits.acquire('files'), { ok: true, waitedMs: 0, waits: [{ bucket: 'global', waitMs: 0 }] });
    }
    assert.deepEqual(await limits.acquire('files'), { ok: true, waitedMs: 200, waits: [{ bucket: 'global', waitMs: 200 }] });
    for (let i = 6; i < 25; i++) assert.equal(waitedMs(await limits.acquire(i % 2 ? 'files' : 'other')), 200);
    assert.ok(time.now() - start >= 4_000, `25 calls took ${time.now() - start} ms`);
    assert.equal(time.now() - start, 4_000);
  });

  test('concurrent callers queue in arrival order instead of all waking at once', async () => {
    const requested: number[] = [];
    const { limits } = await limiter(testConfig([], { rateLimit: limit(5, 1) }), (ms) => {
      requested.push(ms);
      return Promise.resolve();
    });
    const outcomes = await Promise.all([1, 2, 3, 4].map(() => limits.acquire('files')));
    assert.deepEqual(outcomes.map(waitedMs), [0, 200, 400, 600]);
    assert.deepEqual(requested, [200, 400, 600]);
  });

  test('a backend bucket limits only its own backend', async () => {
    const { limits } = await limiter(testConfig([backend('slow', limit(1, 1)), backend('fast')]));
    assert.equal(waitedMs(await limits.acquire('slow')), 0);
    assert.deepEqual(await limits.acquire('slow'), { ok: true, waitedMs: 1_000, waits: [{ bucket: 'backend', waitMs: 1_000 }] });
    for (let i = 0; i < 50; i++) assert.deepEqual(await limits.acquire('fast'), { ok: true, waitedMs: 0, waits: [] });
  });

  test('with both buckets the call waits the longer of the two, once', async () => {
    const { limits, time } = await limiter(testConfig([backend('files', limit(2, 1))], { rateLimit: limit(10, 1) }));
    await limits.acquire('files');
    assert.deepEqual(await limits.acquire('files'), {
      ok: true,
      waitedMs: 500,
      waits: [
        { bucket: 'global', waitMs: 100 },
        { bucket: 'backend', waitMs: 500 },
      ],
    });
    assert.deepEqual(time.slept, [500]);
  });

  test('with both buckets the longer wait counts when it is the global one too', async () => {
    const { limits, time } = await limiter(testConfig([backend('files', limit(10, 1))], { rateLimit: limit(2, 1) }));
    await limits.acquire('files');
    assert.equal(waitedMs(await limits.acquire('files')), 500);
    assert.deepEqual(time.slept, [500]);
  });

  test('a wait over maxWaitMs fails at once, naming the bucket, without sleeping', async () => {
    const { limits, time } = await limiter(testConfig([backend('files', limit(0.5, 1, 800))], { rateLimit: limit(1, 1, 500) }));
    await limits.acquire('files');
    const before = time.now();
    assert.deepEqual(await limits.acquire('files'), { ok: false, reason: 'wait_too_long', bucket: 'global', neededMs: 1_000, maxWaitMs: 500 });
    time.nowMs += 1_000;
    // The global bucket has its token again; the backend's (0.5/s) needs another second.
    assert.deepEqual(await limits.acquire('files'), { ok: false, reason: 'wait_too_long', bucket: 'backend', neededMs: 1_000, maxWaitMs: 800 });
    assert.deepEqual(time.slept, []);
    assert.equal(time.now(), before + 1_000);
  });

  test('a call the backend bucket refuses takes no global token', async () => {
    const { limits } = await limiter(testConfig([backend('busy', limit(1, 1, 0)), backend('idle')], { rateLimit: limit(1, 2) }));
    assert.equal(waitedMs(await limits.acquire('busy')), 0);
    assert.equal((await limits.acquire('busy')).ok, false);
    // Two global tokens, one spent: had the refused call taken one, `idle` would wait a second here.
    assert.equal(waitedMs(await limits.acquire('idle')), 0);
    assert.equal(waitedMs(await limits.acquire('idle')), 1_000);
  });

  test("a backend bucket's maxWaitMs is its own", async () => {
    const { limits } = await limiter(testConfig([backend('files', limit(1, 1, 2_000))], { rateLimit: limit(100, 100, 0) }));
    await limits.acquire('files');
    assert.equal(waitedMs(await limits.acquire('files')), 1_000);
  });

  test("without its own maxWaitMs a backend bucket takes the global one's", async () => {
    // The loader always fills maxWaitMs; this guards configs built by hand.
    const bare = { ratePerSecond: 1, burst: 1 } as RateLimitSettings;
    const { limits } = await limiter(testConfig([backend('files', bare)], { rateLimit: limit(100, 100, 500) }));
    await limits.acquire('files');
    assert.deepEqual(await limits.acquire('files'), { ok: false, reason: 'wait_too_long', bucket: 'backend', neededMs: 1_000, maxWaitMs: 500 });
  });

  test('each principal has its own bucket: one caller exhausting it does not slow another', async () => {
    const { limits } = await limiter(testConfig([backend('files')], { principalRateLimit: limit(1, 2, 500) }));
    assert.equal(waitedMs(await limits.acquire('files', 'alice')), 0);
    assert.equal(waitedMs(await limits.acquire('files', 'alice')), 0);
    const third = await limits.acquire('files', 'alice');
    assert.deepEqual(third, { ok: false, reason: 'wait_too_long', bucket: 'principal', neededMs: 1000, maxWaitMs: 500 });
    assert.equal(waitedMs(await limits.acquire('files', 'carol')), 0);
    assert.equal(waitedMs(await limits.acquire('files')), 0, 'a call without principal takes no principal token');
  });

  test('a call the principal bucket refuses takes no global token', async () => {
    const { limits } = await limiter(testConfig([backend('files')], { rateLimit: limit(1, 1), principalRateLimit: limit(1, 1, 0) }));
    assert.equal(waitedMs(await limits.acquire('files', 'alice')), 0);
    assert.equal((await limits.acquire('files', 'alice')).ok, false);
    // The refused call took no global token, so carol waits one token, not two.
    assert.equal(waitedMs(await limits.acquire('files', 'carol')), 1000);
  });

  test('a call the principal bucket refuses takes no token from the backend bucket', async () => {
    const { limits } = await limiter(testConfig([backend('files', limit(1, 2, 5_000))], { principalRateLimit: limit(1, 1, 0) }));
    assert.equal(waitedMs(await limits.acquire('files', 'alice')), 0);
    for (let i = 0; i < 5; i++) assert.equal((await limits.acquire('files', 'alice')).ok, false);
    // One backend token spent by alice's granted call, none by her five refused ones.
    assert.equal(waitedMs(await limits.acquire('files', 'bob')), 0);
    assert.equal(waitedMs(await limits.acquire('files', 'carol')), 1_000);
  });

  test('the memory store forgets the buckets of callers gone idle', async () => {
    const config = testConfig([backend('files')], { principalRateLimit: limit(10, 10) });
    const { limits, time, store } = await limiterWithStore(config);
    for (let i = 0; i < 1_000; i++) await limits.acquire('files', `caller-${i}`);
    assert.equal(store.size, 1_000);
    time.nowMs += 60_000;
    assert.equal(waitedMs(await limits.acquire('files', 'late')), 0);
    assert.equal(store.size, 1, 'only the caller of the last minute keeps a bucket');
    assert.deepEqual(limits.storeStatus(), { store: 'memory', up: true, fallbacks: { local: 0, refused: 0 } });
  });

  test('the module as wired waits on a real timer', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [ConfigModule.forRoot(testConfig([], { rateLimit: limit(1, 1) })), RateLimitModule],
    }).compile();
    closers.push(() => moduleRef.close());
    const limits = moduleRef.get(RateLimitService);
    await limits.acquire('files');
    // Order, not a stopwatch: a timer of a quarter second started before the second acquire has
    // fired by the time it is granted, so the grant really waited on the clock.
    let quarter = false;
    setTimeout(() => (quarter = true), 250);
    const waited = waitedMs(await limits.acquire('files'));
    // Up to 1 s: the real clock moved on between the two calls (more than half a second only on a
    // box stalled that long, where this test cannot tell waiting from stalling).
    assert.ok(waited > 500 && waited <= 1000, `waited ${waited} ms`);
    assert.equal(quarter, true, 'did not really wait');
  });
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { fullBucket, idleMs, refill, reserve, reserveAll, shareOf, type Bucket, type BucketParams } from './token-bucket';

const FIVE: BucketParams = { ratePerSecond: 5, burst: 5 };
const LONG = 10_000;

describe('token bucket', () => {
  test('a new bucket is full: burst calls go at once', () => {
    let bucket: Bucket | undefined;
    for (let i = 0; i < 5; i++) {
      const r = reserve(bucket, 1, 0, FIVE, LONG);
      assert.deepEqual({ ok: r.ok, waitMs: r.waitMs }, { ok: true, waitMs: 0 });
      bucket = r.bucket;
    }
    assert.deepEqual(bucket, { tokens: 0, atMs: 0 });
  });

  test('an empty bucket says how long to wait', () => {
    const r = reserve({ tokens: 0, atMs: 0 }, 1, 0, FIVE, LONG);
    assert.equal(r.ok, true);
    assert.equal(r.waitMs, 200);
    assert.deepEqual(r.bucket, { tokens: -1, atMs: 0 });
  });

  test('refill is capped at burst', () => {
    assert.deepEqual(refill({ tokens: 4, atMs: 0 }, 1_000, FIVE), { tokens: 5, atMs: 1_000 });
    assert.deepEqual(refill({ tokens: 1, atMs: 0 }, 400, FIVE), { tokens: 3, atMs: 400 });
  });

  test('a long idle gap refills exactly to burst', () => {
    assert.deepEqual(refill({ tokens: -3, atMs: 0 }, 86_400_000, FIVE), { tokens: 5, atMs: 86_400_000 });
  });

  test('a clock that steps back credits nothing and keeps the later time', () => {
    assert.deepEqual(refill({ tokens: 1, atMs: 1_000 }, 500, FIVE), { tokens: 1, atMs: 1_000 });
    const r = reserve({ tokens: 0, atMs: 1_000 }, 1, 500, FIVE, LONG);
    assert.deepEqual(r, { ok: true, waitMs: 200, bucket: { tokens: -1, atMs: 1_000 } });
  });

  test('successive reservations queue: each waiter waits longer than the one before', () => {
    let bucket: Bucket = { tokens: 0, atMs: 0 };
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      const r = reserve(bucket, 1, 0, FIVE, LONG);
      assert.equal(r.ok, true);
      waits.push(r.waitMs);
      bucket = r.bucket;
    }
    assert.deepEqual(waits, [200, 400, 600]);
  });

  test('a wait over maxWaitMs is refused without debiting', () => {
    const r = reserve({ tokens: -1, atMs: 0 }, 1, 100, FIVE, 250);
    // Refilled to -0.5 at 100 ms; one more token would need (1.5 / 5) s = 300 ms.
    assert.deepEqual(r, { ok: false, waitMs: 300, bucket: { tokens: -0.5, atMs: 100 } });
    const exact = reserve({ tokens: -1, atMs: 0 }, 1, 100, FIVE, 300);
    assert.equal(exact.ok, true, 'a wait equal to maxWaitMs is still granted');
  });

  test('maxWaitMs 0 grants only what is in the bucket', () => {
    assert.equal(reserve({ tokens: 1, atMs: 0 }, 1, 0, FIVE, 0).ok, true);
    assert.equal(reserve({ tokens: 0.99, atMs: 0 }, 1, 0, FIVE, 0).ok, false);
  });

  test('reserveAll takes a token from every bucket, or from none', () => {
    const one: BucketParams = { ratePerSecond: 1, burst: 1 };
    const granted = reserveAll(
      [
        { bucket: undefined, params: FIVE, maxWaitMs: LONG },
        { bucket: { tokens: 0, atMs: 0 }, params: FIVE, maxWaitMs: LONG },
      ],
      1,
      0,
    );
    assert.deepEqual(granted, {
      ok: true,
      waitsMs: [0, 200],
      buckets: [
        { tokens: 4, atMs: 0 },
        { tokens: -1, atMs: 0 },
      ],
    });
    // The second bucket refuses (1 s > 500 ms): the first is not debited, the third not even read.
    const refused = reserveAll(
      [
        { bucket: { tokens: 3, atMs: 0 }, params: FIVE, maxWaitMs: LONG },
        { bucket: { tokens: 0, atMs: 0 }, params: one, maxWaitMs: 500 },
        { bucket: { tokens: 0, atMs: 0 }, params: one, maxWaitMs: 0 },
      ],
      1,
      0,
    );
    assert.deepEqual(refused, { ok: false, index: 1, waitMs: 1_000 });
    assert.deepEqual(reserveAll([], 1, 0), { ok: true, waitsMs: [], buckets: [] });
  });

  test('a bucket is idle (full again) after (burst - tokens) / rate', () => {
    assert.equal(idleMs({ tokens: 5, atMs: 0 }, FIVE), 0);
    assert.equal(idleMs({ tokens: 4, atMs: 0 }, FIVE), 200);
    assert.equal(idleMs({ tokens: -2, atMs: 0 }, FIVE), 1_400);
    assert.deepEqual(refill({ tokens: -2, atMs: 0 }, 1_400, FIVE), fullBucket(1_400, FIVE));
  });

  test("a replica's share divides rate and burst, never below one token of burst", () => {
    assert.deepEqual(shareOf({ ratePerSecond: 20, burst: 20 }, 4), { ratePerSecond: 5, burst: 5 });
    assert.deepEqual(shareOf({ ratePerSecond: 3, burst: 2 }, 3), { ratePerSecond: 1, burst: 1 });
    assert.deepEqual(shareOf(FIVE, 1), FIVE);
  });

  test('fractional rates work: 0.5/s is one call every two seconds', () => {
    const half: BucketParams = { ratePerSecond: 0.5, burst: 1 };
    const first = reserve(undefined, 1, 0, half, LONG);
    assert.deepEqual({ ok: first.ok, waitMs: first.waitMs }, { ok: true, waitMs: 0 });
    const second = reserve(first.bucket, 1, 500, half, LONG);
    assert.deepEqual({ ok: second.ok, waitMs: second.waitMs }, { ok: true, waitMs: 1_500 });
    const third = reserve(second.bucket, 1, 500, half, LONG);
    assert.equal(third.waitMs, 3_500);
  });

  test('float noise does not round an exact wait up', () => {
    // -1 + 0.08 + 0.47 is -0.45000000000000007 in doubles: 145.00000000000003 ms, not 146.
    const ten: BucketParams = { ratePerSecond: 10, burst: 1 };
    let bucket: Bucket = { tokens: -1, atMs: 0 };
    bucket = refill(bucket, 8, ten);
    bucket = refill(bucket, 55, ten);
    assert.equal(reserve(bucket, 1, 55, ten, LONG).waitMs, 145);
  });
});

describe('token bucket properties', () => {
  // Seeded: the same cases on every run.
  const RUNS = { seed: 20_260_907, numRuns: 300 };

  const paramsArb = fc.record({
    ratePerSecond: fc.oneof(fc.constantFrom(0.5, 1, 3, 5, 10, 1_000), fc.double({ min: 0.001, max: 500, noNaN: true })),
    burst: fc.integer({ min: 1, max: 20 }),
  });
  const stepsArb = fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 5_000 })), {
    minLength: 1,
    maxLength: 120,
  });

  test('granted calls never start faster than burst + rate × elapsed, in any window', () => {
    fc.assert(
      fc.property(paramsArb, fc.integer({ min: 0, max: 20_000 }), stepsArb, (params, maxWaitMs, steps) => {
        let bucket: Bucket | undefined;
        let now = 0;
        const starts: number[] = [];
        for (const step of steps) {
          now += step;
          const before = bucket === undefined ? fullBucket(now, params) : refill(bucket, now, params);
          const r = reserve(bucket, 1, now, params, maxWaitMs);
          if (r.ok) {
            assert.ok(r.waitMs <= maxWaitMs, 'granted beyond maxWaitMs');
            if (before.tokens >= 1) assert.equal(r.waitMs, 0, 'waits although a token was there');
            else assert.ok(r.waitMs > 0 || before.tokens > 1 - 1e-9, 'no wait although no token was there');
            starts.push(now + r.waitMs);
          } else {
            assert.ok(r.waitMs > maxWaitMs, 'refused within maxWaitMs');
            assert.deepEqual(r.bucket, before, 'a refusal debited the bucket');
          }
          bucket = r.bucket;
        }
        // In any window [a, b] at most burst + rate × (b − a) calls start: an idle bucket saves up
        // no more than burst, however long it idles.
        starts.sort((a, b) => a - b);
        for (let i = 0; i < starts.length; i++) {
          for (let j = i; j < starts.length; j++) {
            const allowed = params.burst + (params.ratePerSecond * (starts[j] - starts[i])) / 1000 + 1e-6;
            assert.ok(j - i + 1 <= allowed, `${j - i + 1} calls started within [${starts[i]}, ${starts[j]}] ms, allowed ${allowed}`);
          }
        }
      }),
      RUNS,
    );
  });
});

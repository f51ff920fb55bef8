import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isCutPoint, jsonBytes, largestFitting, minJsonBytes, plausibleCount, prefixAxis, unitAxis } from './page-search';

test('largestFitting finds the largest k whose cost fits, whatever the axis estimate', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 200 }), fc.integer({ min: 0, max: 5000 }), (sizes, limit) => {
      const cost = (k: number) => sizes.slice(0, k).reduce((a, b) => a + b, 0) + 10;
      let expected = 0;
      for (let k = 1; k <= sizes.length; k++) if (cost(k) <= limit) expected = k;
      assert.equal(
        largestFitting(
          limit,
          sizes.length,
          cost,
          prefixAxis((i) => sizes[i]),
        ),
        expected,
      );
      assert.equal(largestFitting(limit, sizes.length, cost, unitAxis), expected, 'a poor estimate costs probes, never the answer');
    }),
    { seed: 7, numRuns: 200 },
  );
});

test('largestFitting answers 0 when not even the smallest valid k fits, and skips invalid ks', () => {
  assert.equal(
    largestFitting(5, 10, (k) => k * 10, unitAxis),
    0,
  );
  assert.equal(
    largestFitting(
      1000,
      10,
      (k) => k,
      unitAxis,
      () => false,
    ),
    0,
  );
  assert.equal(
    largestFitting(
      1000,
      10,
      (k) => k,
      unitAxis,
      (k) => k % 2 === 0,
    ),
    10,
  );
  assert.equal(
    largestFitting(
      9,
      10,
      (k) => k,
      unitAxis,
      (k) => k % 2 === 0,
    ),
    8,
  );
});

test('largestFitting probes few pages on a linear cost', () => {
  let probes = 0;
  const k = largestFitting(
    50_000,
    1_000_000,
    (n) => {
      probes++;
      return n * 7;
    },
    unitAxis,
  );
  assert.equal(k, 7142);
  assert.ok(probes <= 6, `${probes} probes`);
});

test('prefixAxis sums sizes lazily: a huge array costs what the page needs', () => {
  let asked = 0;
  const axis = prefixAxis(() => {
    asked++;
    return 10;
  });
  assert.equal(axis.at(3), 30);
  assert.equal(axis.inverse(55, 0, 1_000_000), 5);
  assert.ok(asked < 20, `${asked} sizes read`);
});

test('a text is never cut inside a surrogate pair', () => {
  const text = 'a😀b';
  assert.equal(isCutPoint(text, 1), true);
  assert.equal(isCutPoint(text, 2), false);
  assert.equal(isCutPoint(text, 3), true);
});

test('minJsonBytes is a lower bound of the JSON size, and stops counting past its cap', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      assert.ok(minJsonBytes(value, Number.MAX_SAFE_INTEGER) <= jsonBytes(value));
    }),
    { seed: 11, numRuns: 300 },
  );
  assert.equal(minJsonBytes({ a: undefined, f: () => 1, b: 1 }, 100), jsonBytes({ b: 1 }), 'members JSON skips do not count');
  const huge = Array.from({ length: 100_000 }, () => 'x'.repeat(10));
  assert.ok(minJsonBytes(huge, 1000) < 1100);
});

test('plausibleCount counts the leading pieces that could fit at all', () => {
  const pieces = ['aaaa', 'bbbb', 'cccc', 'dddd'];
  // Each string is at least 6 bytes and a comma: 7 per piece.
  assert.equal(
    plausibleCount(pieces.length, 14, (i) => pieces[i]),
    2,
  );
  assert.equal(
    plausibleCount(pieces.length, 1000, (i) => pieces[i]),
    4,
  );
  assert.equal(
    plausibleCount(pieces.length, 3, (i) => pieces[i]),
    0,
  );
});

test('jsonBytes counts UTF-8 bytes of the JSON, and undefined as null', () => {
  assert.equal(jsonBytes('é'), 4);
  assert.equal(jsonBytes(undefined), 4);
});

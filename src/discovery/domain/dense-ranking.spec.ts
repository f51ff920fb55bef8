import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dot, MAX_DIMENSIONS, nearest, unitVector } from './dense-ranking';

test('unitVector scales to length 1 and refuses what has no direction', () => {
  const v = unitVector([3, 4]);
  assert.ok(v);
  assert.ok(Math.abs(v[0] - 0.6) < 1e-6 && Math.abs(v[1] - 0.8) < 1e-6);
  assert.ok(Math.abs(dot(v, v) - 1) < 1e-6);
  assert.equal(unitVector([]), undefined);
  assert.equal(unitVector([0, 0]), undefined);
  assert.equal(unitVector([1, Number.NaN]), undefined);
  assert.equal(unitVector([1, '2']), undefined);
  assert.equal(unitVector(new Array(MAX_DIMENSIONS + 1).fill(1)), undefined);
});

test('nearest ranks by cosine, keeps depth, skips missing and foreign-length vectors', () => {
  const vectors: Record<string, Float32Array | undefined> = {
    east: unitVector([1, 0]),
    northeast: unitVector([1, 1]),
    north: unitVector([0, 1]),
    west: unitVector([-1, 0]),
    unknown: undefined,
    other: unitVector([1, 0, 0]),
  };
  const query = unitVector([1, 0.2])!;
  const all = Object.keys(vectors);
  assert.deepEqual(
    nearest(query, all, (k) => vectors[k], 10),
    ['east', 'northeast', 'north', 'west'],
  );
  assert.deepEqual(
    nearest(query, all, (k) => vectors[k], 2),
    ['east', 'northeast'],
  );
  assert.deepEqual(
    nearest(query, all, (k) => vectors[k], 0),
    [],
  );
});

test('equal similarities keep the candidates order', () => {
  const same = unitVector([1, 1])!;
  assert.deepEqual(
    nearest(unitVector([1, 0])!, ['b', 'a', 'c'], () => same, 2),
    ['b', 'a'],
  );
});

test('dot handles every length, not only multiples of four', () => {
  for (const n of [1, 2, 3, 4, 5, 7, 8, 9]) {
    const a = Float32Array.from({ length: n }, (_, i) => i + 1);
    const b = Float32Array.from({ length: n }, (_, i) => 2 * (i + 1));
    assert.equal(
      dot(a, b),
      Array.from(a).reduce((sum, x) => sum + 2 * x * x, 0),
    );
  }
});

test('admit filters candidates, and is asked only about those near enough to enter', () => {
  const vectors: Record<string, Float32Array> = { a: unitVector([1, 0])!, b: unitVector([1, 0.1])!, c: unitVector([0, 1])!, d: unitVector([-1, 0])! };
  const asked: string[] = [];
  const admit = (k: string) => {
    asked.push(k);
    return k !== 'a';
  };
  assert.deepEqual(
    nearest(unitVector([1, 0])!, ['a', 'b', 'c', 'd'], (k) => vectors[k], 1, admit),
    ['b'],
  );
  assert.deepEqual(asked, ['a', 'b']);
});

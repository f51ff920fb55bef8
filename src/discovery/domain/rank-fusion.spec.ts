import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fuseRankings, RRF_K } from './rank-fusion';

const id = (s: string) => s;
const names = (fused: { item: string }[]) => fused.map((f) => f.item);

test('each ranking adds 1 / (k + rank): an item near the top of both beats the top of one', () => {
  const fused = fuseRankings(
    [
      ['a', 'b', 'c'],
      ['b', 'd', 'a'],
    ],
    id,
  );
  assert.deepEqual(names(fused), ['b', 'a', 'd', 'c']);
  assert.equal(fused[0].score, 1 / (RRF_K + 2) + 1 / (RRF_K + 1));
  assert.equal(fused[3].score, 1 / (RRF_K + 3));
});

test('a ranking that is empty leaves the other as it is', () => {
  assert.deepEqual(names(fuseRankings([[], ['x', 'y', 'z']], id)), ['x', 'y', 'z']);
  assert.deepEqual(names(fuseRankings([['x', 'y'], []], id)), ['x', 'y']);
  assert.deepEqual(fuseRankings([[], []], id), []);
});

test('equal scores: the earlier ranking decides, then the key', () => {
  // a is 1st in the first ranking and 3rd in the second; c the other way round: the same sum.
  const fused = fuseRankings(
    [
      ['a', 'b', 'c'],
      ['c', 'b', 'a'],
    ],
    id,
  );
  assert.deepEqual(names(fused), ['a', 'c', 'b']);
  assert.equal(fused[0].score, fused[1].score);
  assert.deepEqual(names(fuseRankings([['q'], ['p']], id, {})), ['q', 'p']);
  assert.deepEqual(names(fuseRankings([[], ['p', 'q']], id)), ['p', 'q']);
});

test('only the first `depth` items of each ranking take part', () => {
  const fused = fuseRankings(
    [
      ['a', 'b', 'c', 'd'],
      ['d', 'e'],
    ],
    id,
    { depth: 2 },
  );
  assert.deepEqual(names(fused), ['a', 'd', 'b', 'e']);
  assert.equal(fused.find((f) => f.item === 'd')?.score, 1 / (RRF_K + 1));
});

test('k changes how much the first ranks weigh; an item listed twice counts once', () => {
  const fused = fuseRankings([['a', 'a', 'b']], id, { k: 0 });
  assert.deepEqual(fused, [
    { item: 'a', score: 1 },
    { item: 'b', score: 1 / 3 },
  ]);
});

test('items are identified by key, and the first object seen is the one answered', () => {
  const first = { name: 'read', v: 1 };
  const second = { name: 'read', v: 2 };
  const fused = fuseRankings([[first], [second]], (t) => t.name);
  assert.equal(fused.length, 1);
  assert.equal(fused[0].item, first);
  assert.equal(fused[0].score, 2 / (RRF_K + 1));
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reservationOf } from './redis-bucket.client';

test("the script's reply is a grant with one wait per bucket, or the first refusing bucket", () => {
  assert.deepEqual(reservationOf([1, 0, 250]), { ok: true, waitsMs: [0, 250] });
  assert.deepEqual(reservationOf([1]), { ok: true, waitsMs: [] });
  assert.deepEqual(reservationOf([0, 2, 9000]), { ok: false, reason: 'wait_too_long', index: 2, waitMs: 9000 });
});

test('a reply of any other shape is a store failure, not a decision', () => {
  for (const reply of [null, 'OK', [], [2, 0], [0, 1], [0, 1, 2, 3], [1, '250'], { 0: 1 }]) {
    assert.throws(() => reservationOf(reply), /unexpected shape/, JSON.stringify(reply));
  }
});

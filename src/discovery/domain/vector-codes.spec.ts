import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codesInMemory } from './vector-codes';

test('codes in memory: a row is as many codes as the buffer holds, from row × that many on', () => {
  const codes = codesInMemory(Int8Array.of(1, 2, 3, -4, -5, -6));
  assert.equal(codes.length, 6);
  assert.deepEqual([...codes.row(0, new Int8Array(3))], [1, 2, 3]);
  assert.deepEqual([...codes.row(1, new Int8Array(3))], [-4, -5, -6]);
  const into = new Int8Array(2);
  assert.equal(codes.row(2, into), into, 'written into the buffer given');
  assert.deepEqual([...into], [-5, -6]);
});

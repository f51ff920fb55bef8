import assert from 'node:assert/strict';
import { test } from 'node:test';
import { u32At, u32InMemory, u32Part } from './u32-table';

test('a table in memory reads runs as fresh arrays, and refuses runs past its end', () => {
  const values = Uint32Array.of(7, 8, 9, 10);
  const table = u32InMemory(values);
  assert.equal(table.length, 4);
  assert.deepEqual([...table.read(1, 2)], [8, 9]);
  assert.deepEqual([...table.read(4, 0)], []);
  table.read(0, 1)[0] = 99;
  assert.equal(values[0], 7, 'a copy, not a view');
  assert.throws(() => table.read(3, 2), RangeError);
  assert.throws(() => table.read(-1, 1), RangeError);
});

test('a part of a table reads from its own start, within its own length', () => {
  const part = u32Part(u32InMemory(Uint32Array.of(1, 2, 3, 4, 5)), 1, 3);
  assert.equal(part.length, 3);
  assert.deepEqual([...part.read(0, 3)], [2, 3, 4]);
  assert.equal(u32At(part, 2), 4);
  assert.throws(() => part.read(2, 2), RangeError, 'the element after the part is not its own');
});

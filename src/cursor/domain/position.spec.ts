import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isCursorPath, MAX_PATH_BYTES, MAX_PATH_DEPTH, pathBytes } from './position';

test('a cursor path is 1 to MAX_PATH_DEPTH keys or indexes', () => {
  assert.equal(isCursorPath(['rows']), true);
  assert.equal(isCursorPath(['a', 0, 'b']), true);
  assert.equal(isCursorPath([]), false);
  assert.equal(isCursorPath('rows'), false);
  assert.equal(isCursorPath(Array.from({ length: MAX_PATH_DEPTH }, () => 'k')), true);
  assert.equal(isCursorPath(Array.from({ length: MAX_PATH_DEPTH + 1 }, () => 'k')), false);
  for (const step of [-1, 1.5, Number.MAX_SAFE_INTEGER + 1, null, true, {}]) assert.equal(isCursorPath(['a', step]), false, JSON.stringify(step));
});

test('a cursor path is at most MAX_PATH_BYTES as JSON in UTF-8', () => {
  const fits = ['é'.repeat((MAX_PATH_BYTES - 4) / 2)];
  assert.equal(pathBytes(fits), MAX_PATH_BYTES);
  assert.equal(isCursorPath(fits), true);
  assert.equal(isCursorPath(['é'.repeat((MAX_PATH_BYTES - 4) / 2 + 1)]), false);
});

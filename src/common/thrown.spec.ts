import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errnoCode, messageOf } from './thrown';

test('a system error code is read when it is a string, from whatever was thrown', () => {
  const enoent = Object.assign(new Error('no such file'), { code: 'ENOENT' });
  assert.equal(errnoCode(enoent), 'ENOENT');
  assert.equal(errnoCode(new Error('plain')), undefined);
  assert.equal(errnoCode(Object.assign(new Error('numeric'), { code: 42 })), undefined);
  for (const other of [undefined, null, 'ENOENT', 7, ['ENOENT']]) assert.equal(errnoCode(other), undefined);
});

test("an Error's message, anything else as text", () => {
  assert.equal(messageOf(new TypeError('bad')), 'bad');
  assert.equal(messageOf('text'), 'text');
  assert.equal(messageOf(undefined), 'undefined');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseLearnedFile, serializeLearned } from './learned-file';

test('observations round-trip through the file, oldest first', () => {
  const o = [
    { word: 'b', tool: 's\u0000t', definition: 'd', principal: 'p', atMs: 2 },
    { word: 'a', tool: 's\u0000t', definition: 'd', principal: 'q', atMs: 1 },
  ];
  assert.deepEqual(parseLearnedFile(serializeLearned(o)), [o[1], o[0]]);
});

test('anything else is not a learning file', () => {
  assert.equal(parseLearnedFile('not json'), undefined);
  assert.equal(parseLearnedFile('{"version":2,"observations":[]}'), undefined);
});

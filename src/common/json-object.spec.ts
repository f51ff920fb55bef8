import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isJsonObject } from './json-object';

test('a JSON object is a non-null object that is not an array', () => {
  for (const yes of [{}, { a: 1 }, Object.create(null), new Error('e')]) assert.equal(isJsonObject(yes), true);
  for (const no of [null, undefined, [], [1], 'x', 0, true]) assert.equal(isJsonObject(no), false);
});

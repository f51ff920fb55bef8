import assert from 'node:assert/strict';
import { test } from 'node:test';
import { labelValues } from './label-values';

test('the values of a closed union, in the order they are listed', () => {
  assert.deepEqual(labelValues<'b' | 'a' | 'c'>({ b: true, a: true, c: true }), ['b', 'a', 'c']);
});

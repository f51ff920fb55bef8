import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_PATH_DEPTH } from '../../cursor/domain/position';
import { arrayAt, elementOffset, findCuttable, pickArray, pickString, replaceAt, samePath, serializesLarger, stringAt, stringOffset } from './structured-paths';

test('findCuttable finds non-empty arrays and strings through objects only, never a backend pagination token', () => {
  const root = { rows: [1, 2], empty: [], nested: { text: 'hi', deeper: { list: ['a'] } }, inArray: [{ hidden: 'x' }], nextCursor: 'b2', n: 3 };
  const { arrays, strings } = findCuttable(root);
  assert.deepEqual(
    arrays.map((a) => a.path),
    [['rows'], ['nested', 'deeper', 'list'], ['inArray']],
  );
  assert.deepEqual(
    strings.map((s) => s.path),
    [['nested', 'text']],
  );
});

test('findCuttable leaves out what a cursor could not point to', () => {
  let deep: Record<string, unknown> = { text: 'x' };
  for (let i = 0; i < MAX_PATH_DEPTH; i++) deep = { d: deep };
  assert.deepEqual(findCuttable(deep).strings, []);
  assert.deepEqual(findCuttable({ ['k'.repeat(2000)]: 'x' }).strings, []);
});

test('pickArray prefers the array over the item limit, else the largest; pickString the largest escaped', () => {
  const small = { path: ['a'], array: [1, 2, 3] };
  const big = { path: ['b'], array: ['x'.repeat(100)] };
  assert.equal(pickArray([small, big], 10), big);
  assert.equal(pickArray([small, big], 2), small);
  const plain = { path: ['p'], text: 'aaaaaa' };
  const escaped = { path: ['e'], text: '"""""' };
  assert.equal(pickString([plain, escaped]), escaped);
});

test('values are read and replaced at a path, keeping key order and treating __proto__ as data', () => {
  const root = JSON.parse('{"a":{"list":[1,2],"s":"text"},"__proto__":{"x":1},"z":0}') as Record<string, unknown>;
  assert.deepEqual(arrayAt(root, ['a', 'list']), [1, 2]);
  assert.equal(stringAt(root, ['a', 's']), 'text');
  assert.equal(arrayAt(root, ['a', 's']), undefined);
  assert.equal(stringAt(root, ['missing', 's']), undefined);
  const replaced = replaceAt(root, ['a', 'list'], 0, [1]);
  assert.equal(JSON.stringify(replaced), '{"a":{"list":[1],"s":"text"},"__proto__":{"x":1},"z":0}');
  assert.equal(JSON.stringify(root), '{"a":{"list":[1,2],"s":"text"},"__proto__":{"x":1},"z":0}', 'the original is left as it was');
  const proto = replaceAt(root, ['__proto__', 'x'], 0, 2);
  assert.equal(JSON.stringify(proto), '{"a":{"list":[1,2],"s":"text"},"__proto__":{"x":2},"z":0}');
});

test('offsets point into JSON.stringify(root) where an element or a string position begins', () => {
  const root = { skip: { k: [true] }, rows: [{ a: 1 }, 'two', [3]], text: 'é"\\😀tail' };
  const json = JSON.stringify(root);
  for (let i = 0; i < 3; i++) {
    const offset = elementOffset(root, ['rows'], root.rows, i);
    assert.ok(json.startsWith(JSON.stringify(root.rows[i]), offset), `element ${i}`);
  }
  const at = stringOffset(root, ['text'], root.text, 5);
  assert.ok(json.startsWith('tail', at));
  assert.ok(json.startsWith('true]', elementOffset(root, ['skip', 'k'], root.skip.k, 0)), 'through a nested object');
});

test('a path that does not pass through objects is a caller error, not a silent wrong page', () => {
  const root = { a: 'text', b: [1] };
  assert.throws(() => replaceAt(root, ['a', 'x'], 0, 1), /structured path step "a" is not an object/);
  assert.throws(() => elementOffset(root, ['b', 'x'], [], 0), /structured path step "b" is not an object/);
});

test('serializesLarger compares JSON sizes', () => {
  assert.equal(serializesLarger({ a: 'xx' }, { a: 'x' }), true);
  assert.equal(serializesLarger({ a: 'x' }, { a: 'x' }), false);
  assert.equal(serializesLarger(['x'.repeat(10_000)], 'short'), true);
});

test('samePath', () => {
  assert.equal(samePath(['a', 1], ['a', 1]), true);
  assert.equal(samePath(['a', 1], ['a', '1']), false);
  assert.equal(samePath(['a'], ['a', 1]), false);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isJsonObject, JsonObjectSchema, JsonRpcErrorSchema, stringIdOf } from './wire';

test('a JSON object is neither null nor an array', () => {
  assert.equal(isJsonObject({}), true);
  assert.equal(isJsonObject([]), false);
  assert.equal(isJsonObject(null), false);
  assert.equal(isJsonObject('{}'), false);
});

test('a JSON object passes its schema as the very same object, not a copy', () => {
  const big = { a: { b: [1, 2, 3] } };
  const parsed = JsonObjectSchema.safeParse(big);
  assert.ok(parsed.success);
  assert.equal(parsed.data, big);
  assert.equal(JsonObjectSchema.safeParse([1]).success, false);
});

test('a JSON-RPC error keeps an integer code and nothing else', () => {
  assert.deepEqual(JsonRpcErrorSchema.parse({ code: -32602, message: 'secret=hunter2', data: { x: 1 } }), { code: -32602 });
  assert.equal(JsonRpcErrorSchema.safeParse({ code: 1.5 }).success, false);
  assert.equal(JsonRpcErrorSchema.safeParse({ code: '-32602' }).success, false);
});

test('only a string id routes an answer (the router sends string ids only)', () => {
  assert.equal(stringIdOf({ jsonrpc: '2.0', id: 'd7', result: {} }), 'd7');
  assert.equal(stringIdOf({ jsonrpc: '2.0', id: 7, result: {} }), undefined);
  assert.equal(stringIdOf({ jsonrpc: '2.0', method: 'notifications/progress' }), undefined);
  assert.equal(stringIdOf(['d7']), undefined);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkReadCall, nestingDepth } from './read-call';

function nested(levels: number): Record<string, unknown> {
  let v: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
}

test('a minimal call defaults arguments to {}', () => {
  assert.deepEqual(checkReadCall({ name: 'read_file' }), { ok: true, call: { name: 'read_file', arguments: {} } });
});

test('nesting: the arguments object is level 1 and arrays count like objects', () => {
  assert.equal(nestingDepth({}, 100), 1);
  assert.equal(nestingDepth({ a: [{}] }, 100), 3);
  assert.equal(checkReadCall({ name: 't', arguments: nested(8) }).ok, true);
  assert.equal(checkReadCall({ name: 't', arguments: nested(9) }).ok, false);
});

test('a 10,000-level document is refused without recursing through it', () => {
  let deep: unknown = {};
  for (let i = 0; i < 10_000; i++) deep = [deep];
  assert.equal(checkReadCall({ name: 't', arguments: { deep } }).ok, false);
});

test('arguments over 20,000 bytes are refused and the message holds no value', () => {
  const secret = 'sk-live-' + 'z'.repeat(20_000);
  const check = checkReadCall({ name: 't', arguments: { token: secret } });
  assert.equal(check.ok, false);
  assert.ok(!JSON.stringify(check).includes('sk-live-'));
});

test('wrong types, bounds and unknown fields are each described', () => {
  assert.match((checkReadCall({ name: '' }) as { message: string }).message, /name/);
  assert.match((checkReadCall({ name: 'x'.repeat(201) }) as { message: string }).message, /1\.\.200/);
  assert.match((checkReadCall({ name: 't', arguments: [] }) as { message: string }).message, /arguments/);
  assert.match((checkReadCall({ name: 't', secret: 'v' }) as { message: string }).message, /unknown field/);
  assert.equal(checkReadCall({ name: 't', id: 'x' }, new Set(['id'])).ok, true);
  assert.equal(checkReadCall('read_file').ok, false);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_JSON_DEPTH, nestsDeeperThan, parseIncoming } from './jsonrpc';

test('nesting is counted outside strings only', () => {
  assert.equal(nestsDeeperThan('{"a":[{"b":1}]}', 3), false);
  assert.equal(nestsDeeperThan('{"a":[{"b":1}]}', 2), true);
  assert.equal(nestsDeeperThan(JSON.stringify({ s: '[[[[[[[[{{{{{{{' }), 1), false);
  assert.equal(nestsDeeperThan(JSON.stringify({ s: 'quote \\" then [[[[' }), 1), false);
});

test('a body nested 10,000 levels deep is an invalid request, answered without parsing it', () => {
  const deep = '{"jsonrpc":"2.0","id":1,"method":"ping","params":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}';
  const incoming = parseIncoming(deep);
  assert.equal(incoming.kind, 'invalid');
  assert.match((incoming as { message: string }).message, new RegExp(`${MAX_JSON_DEPTH} levels`));
});

test('ids come back as sent; unsafe or overlong ids are refused', () => {
  assert.deepEqual(parseIncoming('{"jsonrpc":"2.0","id":"é✓","method":"ping"}'), { kind: 'request', id: 'é✓', method: 'ping', params: {} });
  assert.equal(parseIncoming('{"jsonrpc":"2.0","id":' + '9'.repeat(400) + ',"method":"ping"}').kind, 'invalid');
  const polluted = parseIncoming('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"__proto__":{"polluted":1}}}');
  assert.equal(polluted.kind, 'request');
  assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was polluted');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JSONRPCNotificationSchema, JSONRPCRequestSchema, RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';
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

test("plain checks give the SDK schemas' verdicts on requests and notifications", () => {
  // The SDK's zod schemas, which parseIncoming's plain checks stand in for on the hot path: every
  // shape below must be judged alike.
  const expected = (message: Record<string, unknown>): string => {
    if ('id' in message) return JSONRPCRequestSchema.safeParse(message).success ? 'request' : 'invalid';
    return JSONRPCNotificationSchema.safeParse(message).success ? 'notification' : 'invalid';
  };
  const values: unknown[] = [undefined, null, true, 0, -1, 1.5, 2 ** 53, -(2 ** 53), 1e300, '', 'x', [], [1], {}, { taskId: 't' }, { taskId: 1 }];
  const metas: unknown[] = [
    ...values,
    ...values.map((progressToken) => ({ progressToken })),
    ...values.map((related) => ({ [RELATED_TASK_META_KEY]: related })),
    { progressToken: 'p', [RELATED_TASK_META_KEY]: { taskId: 't', extra: 1 }, other: [] },
  ];
  const paramsList: unknown[] = [...values, ...metas.map((_meta) => ({ _meta })), { name: 'x', arguments: {} }, JSON.parse('{"__proto__":{"a":1}}')];
  const tops: Record<string, unknown>[] = [
    {},
    { jsonrpc: '1.0' },
    { jsonrpc: 2 },
    { extra: 1 },
    JSON.parse('{"__proto__":{}}') as Record<string, unknown>,
    { result: {} },
  ];
  let compared = 0;
  for (const id of [undefined, 7, 'r']) {
    for (const top of tops) {
      for (const params of paramsList) {
        const message: Record<string, unknown> = {
          jsonrpc: '2.0',
          method: 'tools/call',
          ...(id === undefined ? {} : { id }),
          ...(params === undefined ? {} : { params }),
        };
        Object.assign(message, top);
        if (Object.hasOwn(top, '__proto__')) Object.defineProperty(message, '__proto__', { value: {}, enumerable: true });
        const body = JSON.stringify(message);
        const reparsed = JSON.parse(body) as Record<string, unknown>;
        assert.equal(parseIncoming(body).kind, expected(reparsed), body);
        compared++;
      }
    }
  }
  assert.ok(compared > 500);
});

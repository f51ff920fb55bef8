import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  belongsToSubscription,
  collectModernTools,
  headerValue,
  initializeRefusal,
  listenFilterOf,
  probeVerdict,
  readDiscoverAnswer,
  readListenEvent,
  readListenMessage,
  readRpcResult,
  readToolsPage,
  relistDelayMs,
  requestHeaders,
  requestMeta,
  RELIST,
} from './modern-protocol';

/** The verdict on a discovery answer as it came off the wire. */
const verdictOn = (status: number, body: unknown) => probeVerdict(status, readDiscoverAnswer(body));
const schema = { type: 'object', properties: {} };

test('every modern request names the version, empty client capabilities and the router', () => {
  assert.deepEqual(requestMeta({ name: 'r', version: '1' }), {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'r', version: '1' },
  });
});

test('Mcp-Method always, Mcp-Name for a named request, encoded when not a plain header value (spec "Value Encoding")', () => {
  assert.deepEqual(requestHeaders('tools/list'), { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
  assert.equal(requestHeaders('tools/call', 'get_weather')['mcp-name'], 'get_weather');
  assert.equal(headerValue('Hello, 世界'), '=?base64?SGVsbG8sIOS4lueVjA==?=');
  assert.equal(headerValue(' padded '), '=?base64?IHBhZGRlZCA=?=');
  assert.equal(headerValue('line1\nline2'), '=?base64?bGluZTEKbGluZTI=?=');
  assert.equal(headerValue('=?base64?literal?='), '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
  assert.equal(headerValue('a b'), 'a b');
});

test('the discover probe: a DiscoverResult naming 2026-07-28 is modern', () => {
  assert.deepEqual(verdictOn(200, { jsonrpc: '2.0', id: 1, result: { supportedVersions: ['2026-07-28'], capabilities: {} } }), { era: 'modern' });
});

test("the discover probe: a 2025 server's answers (no session, unknown method, 404, not JSON) mean legacy", () => {
  assert.deepEqual(verdictOn(400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Server not initialized' } }), { era: 'legacy' });
  assert.deepEqual(verdictOn(200, { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } }), { era: 'legacy' });
  assert.deepEqual(verdictOn(404, undefined), { era: 'legacy' });
  assert.deepEqual(verdictOn(405, 'text'), { era: 'legacy' });
});

test('the discover probe: a modern error is never a reason to fall back, unless the server lists a 2025 version', () => {
  const unsupported = (supported: string[]) => ({ jsonrpc: '2.0', id: 1, error: { code: -32022, message: 'x', data: { supported } } });
  assert.deepEqual(verdictOn(400, unsupported(['2025-11-25'])), { era: 'legacy' });
  const none = verdictOn(400, unsupported(['2027-01-01']));
  assert.equal(none.era, 'none');
  assert.match((none as { reason: string }).reason, /2027-01-01/);
  assert.equal(verdictOn(400, { jsonrpc: '2.0', id: 1, error: { code: -32020, message: 'mismatch' } }).era, 'none');
  assert.equal(verdictOn(200, { jsonrpc: '2.0', id: 1, result: { supportedVersions: ['2027-01-01'] } }).era, 'none');
});

test('a tools/list page keeps its tools, cursor and TTL; a negative or missing TTL is 0', () => {
  assert.deepEqual(readToolsPage({ tools: [{ name: 'a', inputSchema: schema, icons: [] }], nextCursor: 'n', ttlMs: 5000, cacheScope: 'public' }), {
    tools: [{ name: 'a', inputSchema: schema, icons: [] }],
    nextCursor: 'n',
    ttlMs: 5000,
  });
  assert.equal(readToolsPage({ tools: [], ttlMs: 1500.7 })?.ttlMs, 1500);
  assert.equal(readToolsPage({ tools: [], ttlMs: -3 })?.ttlMs, 0);
  assert.equal(readToolsPage({ tools: [] })?.ttlMs, 0);
  assert.equal(readToolsPage({ tools: 'x' }), undefined);
  assert.equal(readToolsPage({ tools: [], nextCursor: 7 }), undefined);
});

test('a listed tool needs a name and an input schema object; annotations that break the spec types are dropped', () => {
  assert.equal(readToolsPage({ tools: [{ name: 'a' }] }), undefined, 'no inputSchema');
  assert.equal(readToolsPage({ tools: [{ name: 5, inputSchema: schema }] }), undefined);
  assert.equal(readToolsPage({ tools: [{ name: 'a', inputSchema: schema, description: 7 }] }), undefined);
  const [tool] = readToolsPage({ tools: [{ name: 'a', inputSchema: schema, annotations: { readOnlyHint: 'yes' } }] })?.tools ?? [];
  assert.equal(tool.annotations, undefined);
  const [kept] = readToolsPage({ tools: [{ name: 'a', inputSchema: schema, annotations: { readOnlyHint: true } }] })?.tools ?? [];
  assert.deepEqual(kept.annotations, { readOnlyHint: true });
});

test('discovery: tool-change announcements are read only from capabilities.tools.listChanged === true', () => {
  const discover = (capabilities: unknown) => readDiscoverAnswer({ jsonrpc: '2.0', id: 'c1', result: { supportedVersions: ['2026-07-28'], capabilities } });
  const announces = (answer: ReturnType<typeof readDiscoverAnswer>) => listenFilterOf(answer)?.toolsListChanged === true;
  assert.equal(announces(discover({ tools: { listChanged: true } })), true);
  assert.equal(announces(discover({ tools: { listChanged: 'yes' } })), false);
  assert.equal(announces(discover({})), false);
  assert.equal(announces(readDiscoverAnswer(undefined)), false);
  assert.equal(announces(readDiscoverAnswer([1])), false);
});

test('discovery: the subscription asks for the list changes the server announces, and none when it announces none', () => {
  const discover = (capabilities: unknown) => readDiscoverAnswer({ jsonrpc: '2.0', id: 'c1', result: { supportedVersions: ['2026-07-28'], capabilities } });
  assert.deepEqual(listenFilterOf(discover({ tools: { listChanged: true }, resources: { listChanged: true }, prompts: {} })), {
    toolsListChanged: true,
    resourcesListChanged: true,
  });
  assert.deepEqual(listenFilterOf(discover({ tools: {}, prompts: { listChanged: true } })), { promptsListChanged: true });
  assert.equal(listenFilterOf(discover({ tools: { listChanged: false }, resources: 'yes' })), undefined);
  assert.equal(listenFilterOf(readDiscoverAnswer(undefined)), undefined);
});

test('a JSON-RPC answer outside the hot path: its result, or its error code only, or malformed', () => {
  assert.deepEqual(readRpcResult({ jsonrpc: '2.0', id: 'c1', result: { a: 1 } }, 'wx'), { a: 1 });
  assert.throws(
    () => readRpcResult({ jsonrpc: '2.0', id: 'c1', error: { code: -32603, message: 'secret' } }, 'wx'),
    /backend wx answered with JSON-RPC error -32603/,
  );
  assert.throws(() => readRpcResult({ jsonrpc: '2.0', id: 'c1', error: 'nope' }, 'wx'), /backend wx sent a malformed result/);
  assert.throws(() => readRpcResult('text', 'wx'), /backend wx sent a malformed result/);
});

test('re-list schedule: the TTL within bounds plus up to 10% jitter; TTL 0 relies on notifications when listening', () => {
  assert.equal(relistDelayMs(5_000, true, 0), 5_000);
  assert.equal(relistDelayMs(5_000, false, 0.5), 5_250);
  assert.equal(relistDelayMs(10, false, 0), RELIST.minMs);
  assert.equal(relistDelayMs(10 ** 12, false, 0.9), RELIST.maxMs);
  assert.equal(relistDelayMs(0, true, 0.3), undefined);
  assert.equal(relistDelayMs(0, false, 0), RELIST.unannouncedMs);
});

test('listen stream: acknowledgment, tools change, graceful close; other subscriptions and kinds are ignored', () => {
  const meta = (id: unknown) => ({ 'io.modelcontextprotocol/subscriptionId': id });
  assert.deepEqual(
    readListenEvent(
      { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true }, _meta: meta('s1') } },
      's1',
    ),
    { kind: 'acknowledged', toolsListChanged: true, offeringsListChanged: false },
  );
  assert.deepEqual(readListenEvent({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: meta('s1') } }, 's1'), {
    kind: 'tools_changed',
  });
  assert.deepEqual(readListenEvent({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: meta('s2') } }, 's1'), { kind: 'other' });
  assert.deepEqual(readListenEvent({ jsonrpc: '2.0', id: 's1', result: { resultType: 'complete' } }, 's1'), { kind: 'closed' });
  assert.deepEqual(readListenEvent({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed', params: {} }, 's1'), {
    kind: 'offerings_changed',
    offering: 'prompts',
  });
  assert.deepEqual(readListenEvent({ jsonrpc: '2.0', method: 'notifications/resources/list_changed', params: { _meta: meta('s1') } }, 's1'), {
    kind: 'offerings_changed',
    offering: 'resources',
  });
  assert.deepEqual(readListenEvent({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'x' } }, 's1'), { kind: 'other' });
  assert.deepEqual(
    readListenEvent(
      { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { promptsListChanged: true }, _meta: meta('s1') } },
      's1',
    ),
    { kind: 'acknowledged', toolsListChanged: false, offeringsListChanged: true },
  );
  assert.deepEqual(readListenEvent({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: 'all' } }, 's1'), {
    kind: 'acknowledged',
    toolsListChanged: false,
    offeringsListChanged: false,
  });
  assert.deepEqual(readListenEvent({ jsonrpc: '2.0', id: 's1', error: null }, 's1'), { kind: 'closed' });
  assert.deepEqual(readListenEvent(undefined, 's1'), { kind: 'other' });
});

test('a modern listing is every page, as fresh as its stalest page; an error answer fails it', async () => {
  const pages: Record<string, unknown> = {
    first: { jsonrpc: '2.0', id: 'd1', result: { tools: [{ name: 'a', inputSchema: schema }], nextCursor: 'c2', ttlMs: 60_000 } },
    c2: { jsonrpc: '2.0', id: 'd2', result: { tools: [{ name: 'b', inputSchema: schema }], ttlMs: 5_000 } },
  };
  const asked: unknown[] = [];
  const listing = await collectModernTools((params) => {
    asked.push(params);
    return Promise.resolve(pages[(params.cursor as string | undefined) ?? 'first']);
  }, 'wx');
  assert.deepEqual(listing, {
    tools: [
      { name: 'a', inputSchema: schema },
      { name: 'b', inputSchema: schema },
    ],
    ttlMs: 5_000,
  });
  assert.deepEqual(asked, [{}, { cursor: 'c2' }]);
  await assert.rejects(
    collectModernTools(() => Promise.resolve({ jsonrpc: '2.0', id: 'd1', error: { code: -32603, message: 'x' } }), 'wx'),
    /backend wx answered with JSON-RPC error -32603/,
  );
  await assert.rejects(
    collectModernTools(() => Promise.resolve({ jsonrpc: '2.0', id: 'd1', result: { tools: 'none' } }), 'wx'),
    /malformed tools\/list/,
  );
});

test('on stdio a subscription\'s messages are told apart by the subscription id in _meta (spec "Subscriptions")', () => {
  const note = (sub: unknown) => ({
    jsonrpc: '2.0',
    method: 'notifications/tools/list_changed',
    params: { _meta: { 'io.modelcontextprotocol/subscriptionId': sub } },
  });
  const belongs = (message: unknown) => {
    const read = readListenMessage(message);
    return read !== undefined && belongsToSubscription(read, 'listen1');
  };
  assert.equal(belongs(note('listen1')), true);
  assert.equal(belongs(note('listen2')), false);
  assert.equal(belongs({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }), false, 'uncorrelated');
  assert.equal(belongs({ jsonrpc: '2.0', id: 'listen1', result: {} }), true, 'its final answer');
  assert.equal(belongs({ jsonrpc: '2.0', id: 'd3', result: {} }), false);
  assert.equal(belongs('not an object'), false);
});

test('a 2026-only server refusing initialize is named as such; other errors are not', () => {
  assert.match(
    initializeRefusal(-32022, { supported: ['2026-07-28'], requested: '2025-11-25' }) ?? '',
    /speaks only MCP 2026-07-28 .*lists 2026-07-28.*set era: auto or modern/,
  );
  assert.equal(initializeRefusal(-32022, { supported: ['2025-06-18'] }), undefined);
  assert.equal(initializeRefusal(-32601, undefined), undefined);
});

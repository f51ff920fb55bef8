import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  belongsToSubscription,
  collectModernTools,
  headerValue,
  initializeRefusal,
  paramHeadersOf, paramHeaderValues, probeVerdict, readListenEvent, readToolsPage,
  relistDelayMs,
  requestHeaders,
  requestMeta,
  RELIST,
} from './modern-protocol';

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
  assert.deepEqual(probeVerdict(200, { jsonrpc: '2.0', id: 1, result: { supportedVersions: ['2026-07-28'], capabilities: {} } }), { era: 'modern' });
});

test("the discover probe: a 2025 server's answers (no session, unknown method, 404, not JSON) mean legacy", () => {
  assert.deepEqual(probeVerdict(400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Server not initialized' } }), { era: 'legacy' });
  assert.deepEqual(probeVerdict(200, { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } }), { era: 'legacy' });
  assert.deepEqual(probeVerdict(404, undefined), { era: 'legacy' });
  assert.deepEqual(probeVerdict(405, 'text'), { era: 'legacy' });
});

test('the discover probe: a modern error is never a reason to fall back, unless the server lists a 2025 version', () => {
  const unsupported = (supported: string[]) => ({ jsonrpc: '2.0', id: 1, error: { code: -32022, message: 'x', data: { supported } } });
  assert.deepEqual(probeVerdict(400, unsupported(['2025-11-25'])), { era: 'legacy' });
  const none = probeVerdict(400, unsupported(['2027-01-01']));
  assert.equal(none.era, 'none');
  assert.match((none as { reason: string }).reason, /2027-01-01/);
  assert.equal(probeVerdict(400, { jsonrpc: '2.0', id: 1, error: { code: -32020, message: 'mismatch' } }).era, 'none');
  assert.equal(probeVerdict(200, { jsonrpc: '2.0', id: 1, result: { supportedVersions: ['2027-01-01'] } }).era, 'none');
});

test('a tools/list page keeps its tools, cursor and TTL; a negative or missing TTL is 0', () => {
  assert.deepEqual(readToolsPage({ tools: [{ name: 'a' }], nextCursor: 'n', ttlMs: 5000, cacheScope: 'public' }), { tools: [{ name: 'a' }], nextCursor: 'n', ttlMs: 5000 });
  assert.equal(readToolsPage({ tools: [], ttlMs: -3 })?.ttlMs, 0);
  assert.equal(readToolsPage({ tools: [] })?.ttlMs, 0);
  assert.equal(readToolsPage({ tools: 'x' }), undefined);
  assert.equal(readToolsPage({ tools: [], nextCursor: 7 }), undefined);
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
    readListenEvent({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true }, _meta: meta('s1') } }, 's1'),
    { kind: 'acknowledged', toolsListChanged: true },
  );
  assert.deepEqual(readListenEvent({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: meta('s1') } }, 's1'), { kind: 'tools_changed' });
  assert.deepEqual(readListenEvent({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: meta('s2') } }, 's1'), { kind: 'other' });
  assert.deepEqual(readListenEvent({ jsonrpc: '2.0', id: 's1', result: { resultType: 'complete' } }, 's1'), { kind: 'closed' });
  assert.deepEqual(readListenEvent({ jsonrpc: '2.0', method: 'notifications/prompts/list_changed', params: {} }, 's1'), { kind: 'other' });
});

test('x-mcp-header: annotations on a chain of properties are found, nested too', () => {
  const schema = {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      query: { type: 'string' },
      opts: { type: 'object', properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry' }, n: { type: 'integer', 'x-mcp-header': 'N' } } },
    },
  };
  const headers = paramHeadersOf(schema);
  assert.deepEqual(headers, [
    { header: 'Region', path: ['region'] },
    { header: 'Dry', path: ['opts', 'dry'] },
    { header: 'N', path: ['opts', 'n'] },
  ]);
  assert.deepEqual(paramHeaderValues(headers as never, { region: 'us-west1', query: 'q', opts: { dry: false, n: 42 } }), {
    'mcp-param-region': 'us-west1',
    'mcp-param-dry': 'false',
    'mcp-param-n': '42',
  });
  assert.deepEqual(paramHeaderValues(headers as never, { region: 'Hello, 世界', opts: null }), { 'mcp-param-region': '=?base64?SGVsbG8sIOS4lueVjA==?=' });
  assert.deepEqual(paramHeadersOf({ type: 'object', properties: { a: { type: 'string' } } }), []);
});

test('x-mcp-header: a bad name, a number, a duplicate or an annotation off the properties chain make the tool invalid', () => {
  const invalid = (schema: unknown) => 'invalid' in (paramHeadersOf(schema) as object);
  assert.ok(invalid({ properties: { a: { type: 'string', 'x-mcp-header': '' } } }));
  assert.ok(invalid({ properties: { a: { type: 'string', 'x-mcp-header': 'bad name' } } }));
  assert.ok(invalid({ properties: { a: { type: 'number', 'x-mcp-header': 'A' } } }));
  assert.ok(invalid({ properties: { a: { type: 'string', 'x-mcp-header': 'A' }, b: { type: 'string', 'x-mcp-header': 'a' } } }));
  assert.ok(invalid({ properties: { a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } } }));
  assert.ok(invalid({ oneOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }));
  assert.ok(!invalid({ properties: { 'x-mcp-header': { type: 'string' } } }), 'a property named x-mcp-header is just a property');
});

test('a modern listing is every page, as fresh as its stalest page; an error answer fails it', async () => {
  const pages: Record<string, unknown> = {
    first: { jsonrpc: '2.0', id: 'd1', result: { tools: [{ name: 'a' }], nextCursor: 'c2', ttlMs: 60_000 } },
    c2: { jsonrpc: '2.0', id: 'd2', result: { tools: [{ name: 'b' }], ttlMs: 5_000 } },
  };
  const asked: unknown[] = [];
  const listing = await collectModernTools(async (params) => {
    asked.push(params);
    return pages[(params.cursor as string | undefined) ?? 'first'];
  }, 'wx');
  assert.deepEqual(listing, { tools: [{ name: 'a' }, { name: 'b' }], ttlMs: 5_000 });
  assert.deepEqual(asked, [{}, { cursor: 'c2' }]);
  await assert.rejects(collectModernTools(async () => ({ jsonrpc: '2.0', id: 'd1', error: { code: -32603, message: 'x' } }), 'wx'), /backend wx answered with JSON-RPC error -32603/);
  await assert.rejects(collectModernTools(async () => ({ jsonrpc: '2.0', id: 'd1', result: { tools: 'none' } }), 'wx'), /malformed tools\/list/);
});

test('on stdio a subscription\'s messages are told apart by the subscription id in _meta (spec "Subscriptions")', () => {
  const note = (sub: unknown) => ({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': sub } } });
  assert.equal(belongsToSubscription(note('listen1'), 'listen1'), true);
  assert.equal(belongsToSubscription(note('listen2'), 'listen1'), false);
  assert.equal(belongsToSubscription({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, 'listen1'), false, 'uncorrelated');
  assert.equal(belongsToSubscription({ jsonrpc: '2.0', id: 'listen1', result: {} }, 'listen1'), true, 'its final answer');
  assert.equal(belongsToSubscription({ jsonrpc: '2.0', id: 'd3', result: {} }, 'listen1'), false);
});

test('a 2026-only server refusing initialize is named as such; other errors are not', () => {
  assert.match(initializeRefusal(-32022, { supported: ['2026-07-28'], requested: '2025-11-25' }) ?? '', /speaks only MCP 2026-07-28 .*lists 2026-07-28.*set era: auto or modern/);
  assert.equal(initializeRefusal(-32022, { supported: ['2025-06-18'] }), undefined);
  assert.equal(initializeRefusal(-32601, undefined), undefined);
});

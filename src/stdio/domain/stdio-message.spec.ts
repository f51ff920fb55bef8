import assert from 'node:assert/strict';
import { test } from 'node:test';
import { selectEra } from '../../mcp/domain/request-era';
import { parseIncoming } from '../../mcp/domain/jsonrpc';
import { answerIdOf, errorLine, mirroredHeaders, SHUTTING_DOWN, stdioPrincipal, waitsForBackends } from './stdio-message';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const line = (message: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', ...message });

/** The era the HTTP endpoint picks for a stdio message, with the headers the front end gives it. */
function eraOf(text: string): string {
  const incoming = parseIncoming(text);
  assert.equal(incoming.kind, 'request');
  if (incoming.kind !== 'request') return 'not a request';
  const selection = selectEra(mirroredHeaders(text), incoming.method, incoming.params);
  return selection.era === 'refused' ? `refused ${selection.code}: ${selection.message}` : selection.era;
}

test('the configured principal and its groups, else the anonymous one', () => {
  assert.deepEqual(stdioPrincipal({ principal: 'alice', groups: ['readers'] }), { id: 'alice', groups: ['readers'] });
  assert.deepEqual(stdioPrincipal(undefined), { id: 'anonymous', groups: [] });
});

test('a 2025 message needs no headers and stays legacy', () => {
  const text = line({ id: 1, method: 'tools/call', params: { name: 'find_tool', arguments: {} } });
  assert.deepEqual(mirroredHeaders(text), {});
  assert.equal(eraOf(text), 'legacy');
});

test('a 2026-07-28 request gets the headers its body implies, and passes the era checks', () => {
  const call = line({ id: 2, method: 'tools/call', params: { name: 'find_tool', arguments: { query: 'x' }, _meta: META } });
  assert.deepEqual(mirroredHeaders(call), {
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': `=?base64?${Buffer.from('find_tool').toString('base64')}?=`,
  });
  assert.equal(eraOf(call), 'modern');
  assert.equal(eraOf(line({ id: 3, method: 'tools/list', params: { _meta: META } })), 'modern');
  // A name no header could carry as is still matches its body.
  assert.equal(eraOf(line({ id: 4, method: 'tools/call', params: { name: 'ünï\ncode', _meta: META } })), 'modern');
});

test('the checks that do not come from headers still refuse', () => {
  const noCapabilities = line({ id: 5, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } });
  assert.match(eraOf(noCapabilities), /^refused -32602/);
  const unknownVersion = line({ id: 6, method: 'tools/list', params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '1999-01-01' } } });
  assert.match(eraOf(unknownVersion), /^refused -32022/);
});

test('malformed or odd messages get no headers', () => {
  assert.deepEqual(mirroredHeaders('{"io.modelcontextprotocol/protocolVersion": '), {});
  assert.deepEqual(mirroredHeaders(line({ method: 'notifications/initialized', params: { _meta: META } })), {});
  assert.deepEqual(mirroredHeaders(line({ id: 7, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': 7 } } })), {});
});

test('a request is answered with its id, an unreadable line with null, a notification or a response never', () => {
  assert.equal(answerIdOf(line({ id: 8, method: 'tools/list' })), 8);
  assert.equal(answerIdOf(line({ id: 'a', method: 'tools/list', extra: 1 })), 'a');
  assert.equal(answerIdOf('not json'), null);
  assert.equal(answerIdOf(line({ method: 'notifications/initialized' })), undefined);
  assert.equal(answerIdOf(line({ id: 9, result: {} })), undefined);
  assert.deepEqual(JSON.parse(errorLine(8, SHUTTING_DOWN)), { jsonrpc: '2.0', id: 8, error: { code: -32000, message: SHUTTING_DOWN.message } });
});

test('requests that depend on the backends wait for them (the handshake too: it declares their capabilities); ping, notifications and bad lines do not', () => {
  const line = (method: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} });
  assert.deepEqual(
    ['initialize', 'server/discover', 'tools/list', 'tools/call', 'resources/list', 'prompts/get'].map((m) => waitsForBackends(line(m))),
    [true, true, true, true, true, true],
  );
  assert.equal(waitsForBackends(line('ping')), false);
  assert.equal(waitsForBackends(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })), false);
  assert.equal(waitsForBackends('not json'), false);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeHeaderValue, HEADER_MISMATCH, notificationVersionProblem, selectEra, UNSUPPORTED_PROTOCOL_VERSION, type EraSelection } from './request-era';

const META = (version: unknown, capabilities: unknown = {}) => ({
  _meta: { 'io.modelcontextprotocol/protocolVersion': version, 'io.modelcontextprotocol/clientCapabilities': capabilities },
});
const modernHeaders = (method: string, extra: Record<string, string> = {}) => ({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...extra });

function code(selection: EraSelection): number | string {
  return selection.era === 'refused' ? selection.code : selection.era;
}

test('a request without the _meta envelope is legacy, with or without a legacy version header', () => {
  assert.deepEqual(selectEra({}, 'tools/list', {}), { era: 'legacy' });
  assert.deepEqual(selectEra({ 'mcp-protocol-version': '2025-11-25' }, 'tools/list', {}), { era: 'legacy' });
  assert.deepEqual(selectEra({ 'mcp-protocol-version': '2025-06-18' }, 'tools/call', { name: 'find_tool' }), { era: 'legacy' });
  // initialize is judged by its body, not by a header a client may carry from an earlier session.
  assert.deepEqual(selectEra({ 'mcp-protocol-version': '2099-01-01' }, 'initialize', {}), { era: 'legacy' });
});

test('an unknown version, in the header or in _meta, is UnsupportedProtocolVersion listing the supported ones', () => {
  for (const selection of [
    selectEra({ 'mcp-protocol-version': '2025-03-26' }, 'tools/list', {}),
    selectEra(modernHeaders('tools/list'), 'tools/list', META('1900-01-01')),
  ]) {
    assert.equal(selection.era, 'refused');
    if (selection.era !== 'refused') return;
    assert.equal(selection.code, UNSUPPORTED_PROTOCOL_VERSION);
    assert.deepEqual((selection.data as { supported: string[] }).supported, ['2026-07-28', '2025-11-25', '2025-06-18']);
  }
  const data = (selectEra(modernHeaders('tools/list'), 'tools/list', META('1900-01-01')) as { data: { requested: string } }).data;
  assert.equal(data.requested, '1900-01-01');
});

test('a modern request is served when its headers match its body', () => {
  assert.deepEqual(selectEra(modernHeaders('tools/list'), 'tools/list', META('2026-07-28')), { era: 'modern', version: '2026-07-28' });
  assert.deepEqual(selectEra(modernHeaders('tools/call', { 'mcp-name': 'find_tool' }), 'tools/call', { name: 'find_tool', ...META('2026-07-28') }), {
    era: 'modern',
    version: '2026-07-28',
  });
});

test('a modern request with a missing or different mirrored header is HeaderMismatch', () => {
  const meta = META('2026-07-28');
  assert.equal(code(selectEra({ 'mcp-method': 'tools/list' }, 'tools/list', meta)), HEADER_MISMATCH, 'no version header');
  assert.equal(code(selectEra({ 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/list' }, 'tools/list', meta)), HEADER_MISMATCH, 'version differs');
  assert.equal(code(selectEra({ 'mcp-protocol-version': '2026-07-28' }, 'tools/list', meta)), HEADER_MISMATCH, 'no Mcp-Method');
  assert.equal(code(selectEra(modernHeaders('tools/list'), 'tools/call', { name: 'x', ...meta })), HEADER_MISMATCH, 'Mcp-Method differs');
  assert.equal(code(selectEra(modernHeaders('tools/call'), 'tools/call', { name: 'x', ...meta })), HEADER_MISMATCH, 'no Mcp-Name');
  assert.equal(code(selectEra(modernHeaders('tools/call', { 'mcp-name': 'y' }), 'tools/call', { name: 'x', ...meta })), HEADER_MISMATCH, 'Mcp-Name differs');
  assert.equal(
    code(selectEra(modernHeaders('tools/call', { 'mcp-name': '=?base64?!!?=' }), 'tools/call', { name: 'x', ...meta })),
    HEADER_MISMATCH,
    'bad Base64',
  );
  const message = (selectEra(modernHeaders('tools/list'), 'tools/call', { name: 'x', ...meta }) as { message: string }).message;
  assert.equal(message, 'Header mismatch: Mcp-Method header value "tools/list" does not match body value "tools/call"');
});

test('a present Mcp-Method or Mcp-Name is checked in the legacy era too', () => {
  assert.equal(code(selectEra({ 'mcp-method': 'tools/list' }, 'tools/call', { name: 'x' })), HEADER_MISMATCH);
  assert.equal(code(selectEra({ 'mcp-name': 'y' }, 'tools/call', { name: 'x' })), HEADER_MISMATCH);
  assert.deepEqual(selectEra({ 'mcp-method': 'tools/call', 'mcp-name': 'x' }, 'tools/call', { name: 'x' }), { era: 'legacy' });
});

test('a malformed modern envelope is Invalid params', () => {
  assert.equal(code(selectEra(modernHeaders('tools/list'), 'tools/list', {})), -32602, '2026 header without _meta');
  assert.equal(code(selectEra(modernHeaders('tools/list'), 'tools/list', META(20260728))), -32602, 'version not a string');
  assert.equal(code(selectEra(modernHeaders('tools/list'), 'tools/list', META('2026-07-28', null))), -32602, 'capabilities not an object');
  assert.equal(
    code(selectEra(modernHeaders('tools/list'), 'tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } })),
    -32602,
    'no capabilities',
  );
});

test('Mcp-Name values in the Base64 sentinel are decoded before comparing', () => {
  const name = 'héllo wörld';
  const encoded = `=?base64?${Buffer.from(name, 'utf8').toString('base64')}?=`;
  assert.equal(decodeHeaderValue(encoded), name);
  assert.equal(decodeHeaderValue('plain_name'), 'plain_name');
  assert.equal(decodeHeaderValue('=?base64?not base64?='), undefined);
  assert.deepEqual(selectEra(modernHeaders('tools/call', { 'mcp-name': encoded }), 'tools/call', { name, ...META('2026-07-28') }), {
    era: 'modern',
    version: '2026-07-28',
  });
});

test('a notification is refused only for an unknown version header', () => {
  assert.equal(notificationVersionProblem({}), undefined);
  assert.equal(notificationVersionProblem({ 'mcp-protocol-version': '2026-07-28' }), undefined);
  assert.equal(notificationVersionProblem({ 'mcp-protocol-version': 'latest' })?.code, UNSUPPORTED_PROTOCOL_VERSION);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PROTOCOL_VERSIONS } from './protocol-versions';
import { claimedVersion, METHOD_LABELS, methodLabelIndex, VERSION_LABELS, versionLabelIndex } from './request-labels';

const META = 'io.modelcontextprotocol/protocolVersion';
const label = (claimed: unknown) => VERSION_LABELS[versionLabelIndex(claimed)];

test('the version labels are the listed versions, unsupported and none; the method labels end with other', () => {
  assert.deepEqual(VERSION_LABELS, [...PROTOCOL_VERSIONS, 'unsupported', 'none']);
  assert.equal(METHOD_LABELS.at(-1), 'other');
  assert.equal(new Set(METHOD_LABELS).size, METHOD_LABELS.length);
});

test('a message claims its _meta version, else its header, except initialize, which claims its params version', () => {
  const headers = { 'mcp-protocol-version': '2025-06-18' };
  assert.equal(claimedVersion(headers, 'tools/call', { _meta: { [META]: '2026-07-28' } }), '2026-07-28');
  assert.equal(claimedVersion(headers, 'tools/list', {}), '2025-06-18');
  assert.equal(claimedVersion(headers, 'initialize', { protocolVersion: '2025-11-25' }), '2025-11-25');
  assert.equal(claimedVersion({}, 'initialize', {}), undefined);
  assert.equal(claimedVersion(headers, 'notifications/initialized', undefined), '2025-06-18');
  assert.equal(claimedVersion({}, 'ping', {}), undefined);
});

test('whatever a client claims, the label is a listed version, unsupported or none', () => {
  for (const version of PROTOCOL_VERSIONS) assert.equal(label(version), version);
  assert.equal(label(undefined), 'none');
  for (const hostile of ['2024-11-05', '2026-07-28 ', 'x'.repeat(10_000), 42, null, ['2026-07-28'], {}]) assert.equal(label(hostile), 'unsupported');
});

test('a served method is its own label; any other string is other', () => {
  for (const method of METHOD_LABELS) assert.equal(METHOD_LABELS[methodLabelIndex(method)], method);
  for (const hostile of ['resources/subscribe', 'TOOLS/CALL', 'tools/call ', '__proto__', 'constructor', ''])
    assert.equal(METHOD_LABELS[methodLabelIndex(hostile)], 'other');
});

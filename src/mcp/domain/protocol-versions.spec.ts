import assert from 'node:assert/strict';
import { test } from 'node:test';
import { negotiateVersion, PROTOCOL_VERSIONS, versionHeaderProblem } from './protocol-versions';

test('initialize answers the version asked for when implemented, else the newest implemented', () => {
  for (const version of PROTOCOL_VERSIONS) assert.equal(negotiateVersion(version), version);
  assert.equal(negotiateVersion('2025-03-26'), PROTOCOL_VERSIONS[0], 'batches are refused, so 2025-03-26 is not implemented');
  assert.equal(negotiateVersion('1999-01-01'), PROTOCOL_VERSIONS[0]);
  assert.equal(negotiateVersion(42), PROTOCOL_VERSIONS[0]);
});

test('the version header is accepted when absent or implemented, and a problem otherwise', () => {
  assert.equal(versionHeaderProblem(undefined), undefined);
  for (const version of PROTOCOL_VERSIONS) assert.equal(versionHeaderProblem(version), undefined);
  for (const bad of ['1999-01-01', '', 'latest', '2025-03-26', [PROTOCOL_VERSIONS[0], PROTOCOL_VERSIONS[0]]]) {
    assert.match(versionHeaderProblem(bad) ?? '', /^Bad Request: unsupported MCP-Protocol-Version \(supported: /, String(bad));
  }
});

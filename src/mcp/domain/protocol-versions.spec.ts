import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LEGACY_VERSIONS, MODERN_VERSIONS, negotiateVersion, PROTOCOL_VERSIONS } from './protocol-versions';

test('the router lists its versions newest first, each in exactly one era', () => {
  assert.deepEqual([...PROTOCOL_VERSIONS], ['2026-07-28', '2025-11-25', '2025-06-18']);
  assert.deepEqual([...MODERN_VERSIONS, ...LEGACY_VERSIONS], [...PROTOCOL_VERSIONS]);
});

test('initialize answers the legacy version asked for when implemented, else the newest legacy one', () => {
  for (const version of LEGACY_VERSIONS) assert.equal(negotiateVersion(version), version);
  assert.equal(negotiateVersion('2026-07-28'), '2025-11-25', 'the 2026-07-28 revision has no initialize');
  assert.equal(negotiateVersion('2025-03-26'), '2025-11-25', 'batches are refused, so 2025-03-26 is not implemented');
  assert.equal(negotiateVersion('1999-01-01'), '2025-11-25');
  assert.equal(negotiateVersion(42), '2025-11-25');
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { encodeCursor } from './cursor-codec';
import { checkConfirmation, encodeConfirmation } from './confirmation-codec';

const key = randomBytes(32);
const binding = { principal: 'alice', backend: 'files', tool: 'write_file', argsDigest: 'digest-0123456789abcdef' };
const claims = { ...binding, id: 'id-0123456789abcdef', expiresAt: 1000 };

test('a confirmation verifies for its own call only, until it expires', () => {
  const token = encodeConfirmation(claims, key);
  assert.deepEqual(checkConfirmation(token, key, 999, binding), { ok: true, claims });
  assert.deepEqual(checkConfirmation(token, key, 1000, binding), { ok: false, reason: 'expired' });
  assert.deepEqual(checkConfirmation(token, key, 10, { ...binding, principal: 'bob' }), { ok: false, reason: 'mismatch' });
  assert.deepEqual(checkConfirmation(token, key, 10, { ...binding, argsDigest: 'other-0123456789abcdef' }), { ok: false, reason: 'mismatch' });
  assert.deepEqual(checkConfirmation(token, randomBytes(32), 10, binding), { ok: false, reason: 'bad_signature' });
  assert.deepEqual(checkConfirmation(token + 'x', key, 10, binding), { ok: false, reason: 'bad_signature' });
  assert.deepEqual(checkConfirmation('not a token', key, 10, binding), { ok: false, reason: 'malformed' });
});

test('a cursor signed with the same key is never a confirmation', () => {
  const cursor = encodeCursor({ backend: 'files', tool: 'write_file', argsDigest: binding.argsDigest, principal: 'alice', position: { kind: 'json', offset: 0 }, expiresAt: 1000 }, key);
  assert.deepEqual(checkConfirmation(cursor, key, 10, binding), { ok: false, reason: 'malformed' });
});

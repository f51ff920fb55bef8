import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { encodeCursor } from './cursor-codec';
import { checkConfirmation, encodeConfirmation } from './confirmation-codec';

const key = randomBytes(32);
const binding = { principal: 'alice', backend: 'files', tool: 'write_file', argsDigest: 'digest-0123456789abcdef' };
const scope = 'process-0123456789';
const claims = { ...binding, id: 'id-0123456789abcdef', expiresAt: 1000, scope };

test('a confirmation verifies for its own call only, until it expires', () => {
  const token = encodeConfirmation(claims, key);
  assert.deepEqual(checkConfirmation(token, key, 999, binding, scope), { ok: true, claims });
  assert.deepEqual(checkConfirmation(token, key, 1000, binding, scope), { ok: false, reason: 'expired' });
  assert.deepEqual(checkConfirmation(token, key, 10, { ...binding, principal: 'bob' }, scope), { ok: false, reason: 'mismatch' });
  assert.deepEqual(checkConfirmation(token, key, 10, { ...binding, argsDigest: 'other-0123456789abcdef' }, scope), { ok: false, reason: 'mismatch' });
  assert.deepEqual(checkConfirmation(token, randomBytes(32), 10, binding, scope), { ok: false, reason: 'bad_signature' });
  assert.deepEqual(checkConfirmation(token + 'x', key, 10, binding, scope), { ok: false, reason: 'bad_signature' });
  assert.deepEqual(checkConfirmation('not a token', key, 10, binding, scope), { ok: false, reason: 'malformed' });
});

test('a cursor signed with the same key is never a confirmation', () => {
  const cursor = encodeCursor(
    { backend: 'files', tool: 'write_file', argsDigest: binding.argsDigest, principal: 'alice', position: { kind: 'json', offset: 0 }, expiresAt: 1000 },
    key,
  );
  assert.deepEqual(checkConfirmation(cursor, key, 10, binding, scope), { ok: false, reason: 'malformed' });
});

/** A token whose body is `json` as is, correctly signed: only the payload check stands in the way. */
function signed(json: string): string {
  const body = Buffer.from(json, 'utf8').toString('base64url');
  return `${body}.${createHmac('sha256', key).update(body, 'ascii').digest('base64url')}`;
}

test('a signed payload is read only with exactly its fields, names not empty, a safe integer expiry', () => {
  const fields = { k: 'confirm', v: 2, i: claims.id, p: 'alice', b: 'files', t: 'write_file', d: binding.argsDigest, e: 1000, s: scope };
  assert.deepEqual(checkConfirmation(signed(JSON.stringify(fields)), key, 10, binding, scope), { ok: true, claims });
  const reordered = JSON.stringify({ s: scope, e: 1000, d: fields.d, t: 'write_file', b: 'files', p: 'alice', i: claims.id, v: 2, k: 'confirm' });
  assert.deepEqual(checkConfirmation(signed(reordered), key, 10, binding, scope), { ok: true, claims });
  const { e: _e, ...withoutExpiry } = fields;
  const refused = [
    'not json',
    '[]',
    'null',
    JSON.stringify(withoutExpiry),
    JSON.stringify({ ...fields, o: ['j', 0] }),
    JSON.stringify({ ...fields, k: 'cursor' }),
    JSON.stringify({ ...fields, v: 1 }),
    JSON.stringify({ ...fields, s: '' }),
    JSON.stringify((({ s: _s, ...rest }) => rest)(fields)),
    JSON.stringify({ ...fields, i: '' }),
    JSON.stringify({ ...fields, p: 7 }),
    JSON.stringify({ ...fields, e: 1000.5 }),
    JSON.stringify({ ...fields, e: 2 ** 53 }),
    JSON.stringify({ ...fields, e: '1000' }),
    JSON.stringify(fields).replace('{', '{"__proto__":{},'),
  ];
  for (const json of refused) assert.deepEqual(checkConfirmation(signed(json), key, 10, binding, scope), { ok: false, reason: 'malformed' }, json);
});

test('a token issued under another record of used ids is foreign: that record alone knows whether it was used', () => {
  const token = encodeConfirmation(claims, key);
  assert.deepEqual(checkConfirmation(token, key, 10, binding, 'process-after-restart'), { ok: false, reason: 'foreign' });
  assert.deepEqual(checkConfirmation(token, key, 10, binding, scope), { ok: true, claims });
});

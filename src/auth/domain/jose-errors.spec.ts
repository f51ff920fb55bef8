import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reasonOfJoseError } from './jose-errors';

const joseError = (code: string, fields: Record<string, unknown> = {}) => Object.assign(new Error('library text'), { code, ...fields });

test("a jose error's reason comes from its code, and for claim failures from the claim", () => {
  assert.equal(reasonOfJoseError(joseError('ERR_JWT_EXPIRED')), 'expired');
  assert.equal(reasonOfJoseError(joseError('ERR_JWT_CLAIM_VALIDATION_FAILED', { claim: 'sub', reason: 'missing' })), 'missing_claim');
  assert.equal(reasonOfJoseError(joseError('ERR_JWT_CLAIM_VALIDATION_FAILED', { claim: 'aud', reason: 'check_failed' })), 'wrong_audience');
  assert.equal(reasonOfJoseError(joseError('ERR_JWT_CLAIM_VALIDATION_FAILED', { claim: 'iss' })), 'wrong_issuer');
  assert.equal(reasonOfJoseError(joseError('ERR_JWT_CLAIM_VALIDATION_FAILED', { claim: 'nbf' })), 'not_yet_valid');
  assert.equal(reasonOfJoseError(joseError('ERR_JWKS_NO_MATCHING_KEY')), 'unknown_signing_key');
  assert.equal(reasonOfJoseError(joseError('ERR_JWS_INVALID')), 'malformed_token');
});

test('an unreachable key set is told apart from a bad token; anything unknown is invalid_token', () => {
  assert.equal(reasonOfJoseError(joseError('ERR_JOSE_GENERIC')), 'key_set_unavailable');
  assert.equal(reasonOfJoseError(new TypeError('fetch failed')), 'key_set_unavailable');
  for (const other of [new Error('x'), undefined, null, 'ERR_JWT_EXPIRED', { code: 'ERR_SOMETHING_NEW' }])
    assert.equal(reasonOfJoseError(other), 'invalid_token');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_SUBJECT_CHARS, principalOfClaims } from './jwt-claims';

test('the principal is the token subject, with the groups of the configured claim', () => {
  const payload = { sub: 'alice', iss: 'https://idp', exp: 1, groups: ['readers', 7, ''], roles: 'ops admins' };
  assert.deepEqual(principalOfClaims(payload, 'groups'), { id: 'alice', groups: ['readers'] });
  assert.deepEqual(principalOfClaims(payload, 'roles'), { id: 'alice', groups: ['ops', 'admins'] });
  assert.deepEqual(principalOfClaims(payload, 'absent'), { id: 'alice', groups: [] });
  assert.equal(principalOfClaims({ sub: 'x'.repeat(MAX_SUBJECT_CHARS) }, 'groups')?.id.length, MAX_SUBJECT_CHARS);
});

test('a subject that is not a usable id gives no principal', () => {
  for (const sub of [undefined, '', 'x'.repeat(MAX_SUBJECT_CHARS + 1), 42, null, ['alice'], { id: 'alice' }]) {
    assert.equal(principalOfClaims({ sub, groups: ['readers'] }, 'groups'), undefined, JSON.stringify(sub)?.slice(0, 20));
  }
  for (const payload of [undefined, null, 'alice', ['alice']]) assert.equal(principalOfClaims(payload, 'groups'), undefined);
});

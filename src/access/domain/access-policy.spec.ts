import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANONYMOUS, type Principal } from '../../common/principal';
import { accessIdentity, compileAccess, mayCall, mayUseBackend, mayUseWholeBackend, mayWrite } from './access-policy';

const alice: Principal = { id: 'alice', groups: ['readers'] };
const ivan: Principal = { id: 'ivan', groups: ['readers', 'interns'] };
const nobody: Principal = { id: 'nobody', groups: [] };

const rules = compileAccess([
  { groups: ['interns'], allow: ['everything:get-*'] },
  { groups: ['readers', 'ops'], allow: ['files:*', 'everything:get-sum', 'echo'] },
]);

test("the first rule naming one of the principal's groups decides, and decides alone", () => {
  assert.equal(mayCall(alice, 'files', 'read_file', rules, 'apiKeys'), true);
  assert.equal(mayCall(alice, 'everything', 'get-sum', rules, 'apiKeys'), true);
  assert.equal(mayCall(alice, 'everything', 'get-env', rules, 'apiKeys'), false);
  // ivan is also a reader, but the interns rule comes first and does not allow files.
  assert.equal(mayCall(ivan, 'files', 'read_file', rules, 'jwt'), false);
  assert.equal(mayCall(ivan, 'everything', 'get-env', rules, 'jwt'), true);
});

test('with auth on, no matching rule is no access', () => {
  assert.equal(mayCall(nobody, 'files', 'read_file', rules, 'jwt'), false);
  assert.equal(mayCall({ id: 'x', groups: ['READERS'] }, 'files', 'read_file', rules, 'jwt'), false, 'groups match exactly');
});

test('globs follow the read-only policy: exact, case-sensitive, no backend means every backend', () => {
  assert.equal(mayCall(alice, 'memory', 'echo', rules, 'apiKeys'), true);
  assert.equal(mayCall(alice, 'files', 'anything', rules, 'apiKeys'), true);
  assert.equal(mayCall(alice, 'filesx', 'read_file', rules, 'apiKeys'), false);
  assert.equal(mayCall(alice, 'everything', 'GET-SUM', rules, 'apiKeys'), false);
  assert.equal(mayCall(alice, 'everything', 'get-sum2', rules, 'apiKeys'), false);
});

test('an empty allow list shuts a group out; `*` matches every principal', () => {
  const compiled = compileAccess([
    { groups: ['banned'], allow: [] },
    { groups: ['*'], allow: ['files:list_*'] },
  ]);
  assert.equal(mayCall({ id: 'b', groups: ['banned', 'readers'] }, 'files', 'list_directory', compiled, 'jwt'), false);
  assert.equal(mayCall(nobody, 'files', 'list_directory', compiled, 'jwt'), true);
  assert.equal(mayCall(alice, 'files', 'read_file', compiled, 'jwt'), false);
});

test('mode none: everything without an access block; with one, the anonymous caller matches only `*`', () => {
  const none = compileAccess(undefined);
  assert.equal(mayCall(ANONYMOUS, 'files', 'read_file', none, 'none'), true);
  assert.equal(mayCall(ANONYMOUS, 'files', 'read_file', rules, 'none'), false);
  assert.equal(mayCall(ANONYMOUS, 'files', 'read_file', compileAccess([{ groups: ['*'], allow: ['files:*'] }]), 'none'), true);
});

test('auth on without an access block fails closed', () => {
  assert.equal(mayCall(alice, 'files', 'read_file', compileAccess(undefined), 'apiKeys'), false);
  assert.equal(mayCall(alice, 'files', 'read_file', compileAccess(undefined), 'jwt'), false);
  assert.equal(mayCall(alice, 'files', 'read_file', compileAccess([]), 'jwt'), false);
});

test('write permission is separate from read permission, decided by the same first rule', () => {
  const writing = compileAccess([
    { groups: ['interns'], allow: ['*'] },
    { groups: ['editors'], allow: ['files:*'], write: ['files:write_*'] },
  ]);
  const eve: Principal = { id: 'eve', groups: ['editors'] };
  assert.equal(mayWrite(eve, 'files', 'write_file', writing, 'jwt'), true);
  assert.equal(mayWrite(eve, 'files', 'move_file', writing, 'jwt'), false);
  assert.equal(mayWrite({ id: 'ivan', groups: ['interns', 'editors'] }, 'files', 'write_file', writing, 'jwt'), false, 'interns come first and write nothing');
  assert.equal(mayWrite(alice, 'files', 'write_file', rules, 'apiKeys'), false, 'a rule without write grants no write');
  assert.equal(mayWrite(ANONYMOUS, 'files', 'write_file', compileAccess(undefined), 'none'), true);
  assert.equal(mayWrite(ANONYMOUS, 'files', 'write_file', compileAccess(undefined), 'jwt'), false);
});

test('a server is one the caller may use when its first matching rule opens any tool of it', () => {
  assert.equal(mayUseBackend(alice, 'files', rules, 'apiKeys'), true);
  assert.equal(mayUseBackend(alice, 'everything', rules, 'apiKeys'), true);
  // `echo` names no backend: it opens that tool on every backend.
  assert.equal(mayUseBackend(alice, 'memory', rules, 'apiKeys'), true);
  assert.equal(mayUseBackend(ivan, 'files', rules, 'jwt'), false);
  assert.equal(mayUseBackend(nobody, 'files', rules, 'jwt'), false);
  const writers = compileAccess([{ groups: ['*'], allow: [], write: ['fi?es:write_*'] }]);
  assert.equal(mayUseBackend(nobody, 'files', writers, 'jwt'), true);
  assert.equal(mayUseBackend(nobody, 'docs', writers, 'jwt'), false);
  assert.equal(mayUseBackend(nobody, 'files', compileAccess(undefined), 'none'), true);
});

test("a backend's resources and prompts are the caller's only when its rule allows every tool of that backend", () => {
  const whole = compileAccess([
    { groups: ['readers'], allow: ['files:*', 'everything:get-*', 'team-*:*'] },
    { groups: ['all'], allow: ['*'] },
  ]);
  assert.equal(mayUseWholeBackend(alice, 'files', whole, 'apiKeys'), true);
  assert.equal(mayUseWholeBackend(alice, 'team-x', whole, 'apiKeys'), true);
  assert.equal(mayUseWholeBackend(alice, 'everything', whole, 'apiKeys'), false, 'some tools of a backend are not the whole backend');
  assert.equal(mayUseWholeBackend({ id: 'x', groups: ['all'] }, 'everything', whole, 'apiKeys'), true);
  assert.equal(mayUseWholeBackend(nobody, 'files', whole, 'apiKeys'), false);
  assert.equal(mayUseWholeBackend(ANONYMOUS, 'files', compileAccess(undefined), 'none'), true);
});

test('the access identity is the deciding rule: principals that rules treat alike share it, whatever their ids and other groups', () => {
  const ops: Principal = { id: 'olga', groups: ['ops'] };
  const both: Principal = { id: 'bob', groups: ['ops', 'readers'] };
  assert.equal(accessIdentity(alice, rules, 'apiKeys'), 'rule:1');
  assert.equal(accessIdentity(ops, rules, 'apiKeys'), 'rule:1');
  assert.equal(accessIdentity(both, rules, 'apiKeys'), 'rule:1');
  assert.equal(accessIdentity(ivan, rules, 'apiKeys'), 'rule:0');
  assert.equal(accessIdentity(nobody, rules, 'apiKeys'), 'none');
  assert.equal(accessIdentity(nobody, compileAccess(undefined), 'none'), 'open');
  assert.equal(accessIdentity(alice, compileAccess(undefined), 'jwt'), 'closed');
});

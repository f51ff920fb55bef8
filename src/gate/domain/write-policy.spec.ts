import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compilePolicy, decideReadOnly } from './read-only-policy';
import { compileWritePolicy, decideWrite, writeRefusalMessage } from './write-policy';

const readPolicy = compilePolicy({ allow: ['files:list_*'], deny: ['files:read_secret*'] });
const writes = compileWritePolicy({ enabled: true, allow: ['files:*', 'memory:create_*'], deny: ['files:move_file'] });

function decide(backend: string, tool: string, annotations: { readOnlyHint?: boolean } | undefined, policy = writes) {
  return decideWrite(backend, tool, annotations, decideReadOnly(backend, tool, annotations, readPolicy), policy);
}

test('a tool that is not read-only and matches writes.allow may be written', () => {
  assert.deepEqual(decide('files', 'write_file', { readOnlyHint: false }), { writable: true, reason: 'writes_allow' });
  assert.deepEqual(decide('memory', 'create_entities', undefined), { writable: true, reason: 'writes_allow' });
});

test('a read-only tool is never written: by its annotation, by an operator allow, or annotated and denied on the read path', () => {
  assert.deepEqual(decide('files', 'read_file', { readOnlyHint: true }), { writable: false, reason: 'read_only' });
  assert.deepEqual(decide('files', 'list_directory', undefined), { writable: false, reason: 'read_only' });
  assert.deepEqual(decide('files', 'read_secret_key', { readOnlyHint: true }), { writable: false, reason: 'read_only' });
});

test('writes.deny wins over writes.allow; a tool outside writes.allow is refused', () => {
  assert.deepEqual(decide('files', 'move_file', undefined), { writable: false, reason: 'writes_deny' });
  assert.deepEqual(decide('memory', 'delete_entities', undefined), { writable: false, reason: 'not_in_writes_allow' });
});

test('with writes disabled nothing may be written, whatever writes.allow says', () => {
  const disabled = compileWritePolicy({ enabled: false, allow: ['*'], deny: [] });
  assert.deepEqual(decide('files', 'write_file', undefined, disabled), { writable: false, reason: 'not_in_writes_allow' });
});

test('a refusal points a read-only tool to invoke_read_tool, and names the writes policy otherwise', () => {
  assert.equal(writeRefusalMessage('read_only'), 'this tool is read-only: call it with invoke_read_tool');
  assert.equal(writeRefusalMessage('writes_deny'), "the operator's writes policy does not allow this tool");
  assert.equal(writeRefusalMessage('not_in_writes_allow'), "the operator's writes policy does not allow this tool");
});

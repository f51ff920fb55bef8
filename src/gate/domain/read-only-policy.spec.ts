import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compilePolicy, decideReadOnly, readRefusalMessage } from './read-only-policy';

const none = compilePolicy({ allow: [], deny: [] });

test('a read-only annotation opens the read path', () => {
  assert.deepEqual(decideReadOnly('files', 'read_file', { readOnlyHint: true }, none), {
    readOnly: true,
    reason: 'annotated_read_only',
  });
});

test('no annotations, or a false hint, is not read-only', () => {
  assert.equal(decideReadOnly('files', 'write_file', undefined, none).readOnly, false);
  assert.equal(decideReadOnly('files', 'write_file', { readOnlyHint: false }, none).readOnly, false);
  assert.equal(decideReadOnly('files', 'x', { destructiveHint: false }, none).reason, 'not_annotated_read_only');
});

test('an operator allow pattern makes an unannotated tool read-only', () => {
  const policy = compilePolicy({ allow: ['files:list_*'], deny: [] });
  assert.equal(decideReadOnly('files', 'list_directory', undefined, policy).reason, 'operator_allow');
  assert.equal(decideReadOnly('memory', 'list_directory', undefined, policy).readOnly, false);
  assert.equal(decideReadOnly('files', 'xlist_directory', undefined, policy).readOnly, false);
});

test('deny wins over the annotation and over allow', () => {
  const policy = compilePolicy({ allow: ['files:*'], deny: ['files:read_secret*'] });
  assert.deepEqual(decideReadOnly('files', 'read_secret_key', { readOnlyHint: true }, policy), {
    readOnly: false,
    reason: 'operator_deny',
  });
});

test('patterns match exactly: regex characters are literal, ? is one character, no case folding', () => {
  const policy = compilePolicy({ allow: ['every.thing:get-?um', 'echo'], deny: [] });
  assert.equal(decideReadOnly('every.thing', 'get-sum', undefined, policy).readOnly, true);
  assert.equal(decideReadOnly('everyxthing', 'get-sum', undefined, policy).readOnly, false);
  assert.equal(decideReadOnly('every.thing', 'GET-SUM', undefined, policy).readOnly, false);
  assert.equal(decideReadOnly('any', 'echo', undefined, policy).readOnly, true, 'a pattern without backend applies to every backend');
});

test('a refusal says whether the operator denied the tool or it is not annotated read-only', () => {
  assert.equal(readRefusalMessage('operator_deny'), 'the operator policy denies this tool on the read path');
  assert.equal(readRefusalMessage('not_annotated_read_only'), 'this tool is not read-only (its backend does not annotate it readOnlyHint: true)');
});

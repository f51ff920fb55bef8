import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RouterError } from '../../common/router-error';
import { failedCall, invalidCall, nameOf } from './call-outcome';

test('a failed call answers the status of its code and keeps the code for the single answer', () => {
  assert.deepEqual(failedCall('read_file', 'files', new RouterError('rate_limited', 'rate limit: no token within 5 ms'), 'digest'), {
    kind: 'failed',
    answer: { tool: 'read_file', server: 'files', status: 'error', error: 'rate limit: no token within 5 ms' },
    code: 'rate_limited',
    argsDigest: 'digest',
  });
});

test('an invalid call answers under the name it gave, with no server and no digest', () => {
  assert.deepEqual(invalidCall({ name: 'x', bogus: 1 }, 'unknown field(s)'), {
    kind: 'failed',
    answer: { tool: 'x', server: null, status: 'invalid_call', error: 'unknown field(s)' },
    code: 'invalid_call',
    argsDigest: null,
  });
});

test('the name of a malformed call is its string name cut to 200 characters, else empty', () => {
  assert.equal(nameOf({ name: 'n'.repeat(300) }), 'n'.repeat(200));
  assert.equal(nameOf({ name: 7 }), '');
  assert.equal(nameOf(null), '');
  assert.equal(nameOf('read_file'), '');
  assert.equal(nameOf(['read_file']), '');
});

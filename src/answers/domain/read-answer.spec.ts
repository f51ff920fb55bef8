import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RouterError } from '../../common/router-error';
import { failureAnswer, MAX_ERROR_CHARS } from './read-answer';

test('a failure answers the status of its code, with its message', () => {
  assert.deepEqual(failureAnswer('t', 'files', new RouterError('blocked', 'no')), { tool: 't', server: 'files', status: 'blocked', error: 'no' });
  assert.equal(failureAnswer('t', null, new RouterError('backend_timeout', 'slow')).status, 'error');
});

test('an error message is cut to 500 characters', () => {
  const answer = failureAnswer('t', null, new RouterError('backend_failed', 'x'.repeat(2000)));
  assert.equal(MAX_ERROR_CHARS, 500);
  assert.equal(answer.error?.length, MAX_ERROR_CHARS);
});

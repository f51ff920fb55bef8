import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { RouterError } from '../../common/router-error';
import { describeFailure, mcpErrorCode, RESPONSE_TOO_LARGE_CODE, toRouterError } from './backend-failures';

test('SDK failures map to router error codes', () => {
  const cases: [unknown, string][] = [
    [new McpError(ErrorCode.RequestTimeout, 'Request timed out'), 'backend_timeout'],
    [new McpError(RESPONSE_TOO_LARGE_CODE, 'Response too large'), 'response_too_large'],
    [new McpError(ErrorCode.ConnectionClosed, 'Connection closed'), 'backend_failed'],
    [new McpError(ErrorCode.InvalidParams, 'bad'), 'backend_failed'],
    [new Error('Not connected'), 'backend_unavailable'],
    [new TypeError('fetch failed'), 'backend_failed'],
    ['a string', 'backend_failed'],
  ];
  for (const [err, code] of cases) assert.equal(toRouterError(err, 'b', 1000).code, code, String(err));
});

test("an McpError's code reads as the SDK's ErrorCode, and a code the SDK does not name comes through as sent", () => {
  assert.equal(mcpErrorCode(new McpError(ErrorCode.RequestTimeout, 'x')), ErrorCode.RequestTimeout);
  assert.equal(mcpErrorCode(new McpError(-32042, 'x')), -32042);
  assert.equal(toRouterError(new McpError(-32042, 'x'), 'b', 1000).message, 'backend b answered with JSON-RPC error -32042');
});

test('a backend error message never reaches the router error (it may echo arguments)', () => {
  const err = toRouterError(new McpError(ErrorCode.InvalidParams, 'path /secret/token.txt denied'), 'files', 1000);
  assert.doesNotMatch(err.message, /secret/);
  assert.match(err.message, /files/);
});

test('a RouterError passes through unchanged', () => {
  const original = new RouterError('backend_failed', 'x');
  assert.equal(toRouterError(original, 'b', 1), original);
});

test('failure descriptions are one short line and name the cause', () => {
  const err = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') });
  assert.equal(describeFailure(err), 'fetch failed (connect ECONNREFUSED 127.0.0.1:1)');
  assert.ok(describeFailure(new Error(`a\n${'x'.repeat(500)}`)).length <= 200);
});

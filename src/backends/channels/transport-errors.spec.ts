import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ConnectionBrokeError, ConnectionLostError } from '../domain/backend-failures';
import type { ChannelEvents } from './backend-channel';
import { classifyTransportError, reportRequestFailure } from './transport-errors';

test('transport errors are told apart: lost, suspect, benign', () => {
  assert.equal(classifyTransportError(new TypeError('fetch failed')), 'lost');
  assert.equal(classifyTransportError(new StreamableHTTPError(404, 'session not found')), 'lost');
  assert.equal(classifyTransportError(new StreamableHTTPError(500, 'oops')), 'benign');
  assert.equal(classifyTransportError(new SseError(undefined, 'stream broke', {} as never)), 'lost');
  assert.equal(classifyTransportError(new Error('Maximum reconnection attempts (2) exceeded.')), 'lost');
  assert.equal(classifyTransportError(new Error('SSE stream disconnected: TypeError: terminated')), 'suspect');
  assert.equal(classifyTransportError(new Error('Unexpected token')), 'benign');
});

test("a failed request of the router's own client reports lost or suspect, and nothing else", () => {
  const seen: string[] = [];
  const events: ChannelEvents = {
    onClose: () => seen.push('close'),
    onLost: (reason) => seen.push(`lost: ${reason}`),
    onSuspect: () => seen.push('suspect'),
    onListChanged: () => seen.push('changed'),
  };
  reportRequestFailure(new ConnectionLostError('backend wx is unreachable (ECONNREFUSED)'), events);
  reportRequestFailure(new ConnectionBrokeError('connection to backend wx broke (ECONNRESET)'), events);
  reportRequestFailure(new Error('backend wx answered HTTP 500'), events);
  assert.deepEqual(seen, ['lost: backend wx is unreachable (ECONNREFUSED)', 'suspect']);
});

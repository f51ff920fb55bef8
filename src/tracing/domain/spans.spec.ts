import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SpanAttributes, SpanStart } from '../tracing';
import { answerAttributes, backendAddress, backendCallSpan, callOutcomeAttributes, carrierOf, requestSpan, toolCallSpan } from './spans';

const CLIENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const HTTP = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const PUBLISHED = new Set(['find_tool', 'invoke_read_tool']);

/** The attributes a span gets from these: the SDK skips a key whose value is undefined. */
const set = (attributes: SpanAttributes | undefined) =>
  attributes === undefined ? undefined : Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined));

test('a request span is named after a published tool only, and carries the MCP attributes', () => {
  const call = requestSpan({ method: 'tools/call', id: 7, protocolVersion: '2025-11-25', toolName: 'invoke_read_tool', headers: {}, published: PUBLISHED });
  assert.equal(call.name, 'tools/call invoke_read_tool');
  assert.equal(call.kind, 'server');
  assert.deepEqual(set(call.attributes), {
    'mcp.method.name': 'tools/call',
    'jsonrpc.request.id': '7',
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
    'mcp.protocol.version': '2025-11-25',
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'invoke_read_tool',
  });
  // Any other name is the caller's text: an attribute at most, never the span's name.
  assert.equal(requestSpan({ method: 'tools/call', id: 1, toolName: 'whatever_you_like', headers: {}, published: PUBLISHED }).name, 'tools/call');
  const list = requestSpan({ method: 'tools/list', id: 'a', headers: {}, published: PUBLISHED });
  assert.equal(list.name, 'tools/list');
  assert.deepEqual(set(list.attributes), {
    'mcp.method.name': 'tools/list',
    'jsonrpc.request.id': 'a',
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
  });
  // One shape whatever the request: the attributes it lacks are there, undefined.
  assert.deepEqual(Object.keys(list.attributes), Object.keys(call.attributes));
});

test('the parent comes from params._meta first, then from the HTTP headers; a differing header is a link', () => {
  const headers = { traceparent: HTTP, tracestate: 'a=1' };
  const fromHeaders = requestSpan({ method: 'ping', id: 1, headers, published: PUBLISHED });
  assert.deepEqual(fromHeaders.parent, { traceparent: HTTP, tracestate: 'a=1' });
  assert.equal(fromHeaders.link, undefined);
  const both = requestSpan({ method: 'ping', id: 1, meta: { traceparent: CLIENT }, headers, published: PUBLISHED });
  assert.deepEqual(both.parent, { traceparent: CLIENT });
  assert.deepEqual(both.link, { traceparent: HTTP, tracestate: 'a=1' });
  const none = requestSpan({ method: 'ping', id: 1, meta: { traceparent: 42 }, headers: {}, published: PUBLISHED });
  assert.deepEqual(none.parent, {}, 'no caller context: a new trace');
});

test('carriers take string fields only, and only with a traceparent', () => {
  assert.equal(carrierOf(undefined), undefined);
  assert.equal(carrierOf({ tracestate: 'a=1' }), undefined);
  assert.deepEqual(carrierOf({ traceparent: CLIENT, tracestate: 7 }), { traceparent: CLIENT });
});

test('an answer marks its span only when it is a JSON-RPC error or not HTTP 200', () => {
  assert.equal(answerAttributes(200, '{"jsonrpc":"2.0","id":1,"result":{}}'), undefined);
  assert.deepEqual(set(answerAttributes(200, { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'x' } })), { 'error.type': '-32602' });
  assert.deepEqual(set(answerAttributes(404, { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'x' } })), {
    'http.response.status_code': 404,
    'error.type': '-32601',
  });
});

test('a tool call span says its entrypoint, then what the call resolved to and how it ended', () => {
  const entry = toolCallSpan('batch', 3);
  assert.equal(entry.name, 'batch');
  assert.equal(entry.kind, 'internal');
  assert.deepEqual(set(entry.attributes), { 'centralmcp.entrypoint': 'batch', 'gen_ai.operation.name': 'execute_tool', 'centralmcp.batch.index': 3 });
  assert.deepEqual(set(toolCallSpan('invoke_read_tool').attributes), { 'centralmcp.entrypoint': 'invoke_read_tool', 'gen_ai.operation.name': 'execute_tool' });
  assert.deepEqual(set(callOutcomeAttributes({ tool: 'read_file', server: 'files', status: 'error', code: 'backend_timeout' })), {
    'centralmcp.status': 'error',
    'gen_ai.tool.name': 'read_file',
    'centralmcp.backend': 'files',
    'error.type': 'backend_timeout',
  });
  assert.deepEqual(set(callOutcomeAttributes({ tool: '', server: null, status: 'invalid_call' })), {
    'centralmcp.status': 'invalid_call',
    'gen_ai.tool.name': '',
  });
});

test('a backend call is a client span with the transport the MCP conventions name', () => {
  const attributesOf = (start: SpanStart) => set({ ...start.shared, ...start.attributes }) ?? {};
  const http = backendCallSpan('docs', 'search', backendAddress('docs', { transport: 'http', url: 'https://docs.internal/mcp' }));
  assert.equal(http.name, 'tools/call search');
  assert.equal(http.kind, 'client');
  assert.deepEqual(attributesOf(http), {
    'mcp.method.name': 'tools/call',
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'search',
    'centralmcp.backend': 'docs',
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
    'server.address': 'docs.internal',
    'server.port': 443,
  });
  assert.equal(
    attributesOf(backendCallSpan('docs', 'search', backendAddress('docs', { transport: 'http', url: 'http://127.0.0.1:9000/mcp' })))['server.port'],
    9000,
  );
  const stdio = attributesOf(backendCallSpan('files', 'read_file', backendAddress('files', { transport: 'stdio' })));
  assert.equal(stdio['network.transport'], 'pipe');
  assert.equal(stdio['server.address'], undefined);
  assert.equal(stdio['centralmcp.backend'], 'files');
  // Every call to a backend shares its attributes: built once per config.
  const docs = backendAddress('docs', { transport: 'stdio' });
  assert.equal(backendCallSpan('docs', 'a', docs).shared, backendCallSpan('docs', 'b', docs).shared);
  // A backend a reload removed while its call was on the way: named, without an address.
  assert.deepEqual(attributesOf(backendCallSpan('gone', 'a', undefined)), {
    'mcp.method.name': 'tools/call',
    'gen_ai.operation.name': 'execute_tool',
    'centralmcp.backend': 'gone',
    'gen_ai.tool.name': 'a',
  });
});

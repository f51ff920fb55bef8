import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidHeaderError, RequestHeadFormat } from './http-request';

const target = { path: '/mcp?x=1', host: 'backend:8080' };
const fixed = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A head's header lines as [name, value] pairs, in order. */
function fields(head: string): Array<[string, string]> {
  const lines = head.split('\r\n');
  assert.equal(lines[0], 'POST /mcp?x=1 HTTP/1.1');
  assert.deepEqual(lines.slice(-2), ['', ''], 'the head ends with an empty line');
  return lines.slice(1, -2).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]);
}

test('a head carries host, keep-alive, the configured and fixed headers, the own headers, then the length', () => {
  const format = new RequestHeadFormat(target, { Authorization: 'Bearer t' }, fixed);
  const head = format.head(42, { 'mcp-session-id': 's1' }, undefined, { traceparent: '00-ab-cd-01' });
  assert.deepEqual(fields(head), [
    ['host', 'backend:8080'],
    ['connection', 'keep-alive'],
    ['Authorization', 'Bearer t'],
    ['content-type', 'application/json'],
    ['accept', 'application/json, text/event-stream'],
    ['mcp-session-id', 's1'],
    ['traceparent', '00-ab-cd-01'],
    ['content-length', '42'],
  ]);
});

test('a later header replaces an earlier one of the same name, case aside; each name is sent once', () => {
  const format = new RequestHeadFormat(target, { 'Content-Type': 'text/plain', 'content-length': '1', Host: 'alias' }, fixed);
  const head = format.head(3, { 'MCP-Method': 'tools/call' }, { HOST: 'other', 'x-extra': 'y' });
  const names = fields(head).map(([name]) => name.toLowerCase());
  assert.equal(new Set(names).size, names.length, names.join());
  assert.deepEqual(Object.fromEntries(fields(head).map(([n, v]) => [n.toLowerCase(), v])), {
    host: 'other',
    connection: 'keep-alive',
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-method': 'tools/call',
    'x-extra': 'y',
    'content-length': '3',
  });
});

test('headers a request cannot carry are refused as Node refuses them, without echoing the value', () => {
  const format = new RequestHeadFormat(target, {}, fixed);
  for (const [name, value] of [
    ['x-injected', 'a\r\nx-evil: 1'],
    ['bad name', 'token-1'],
    ['x-wide', 'snowman ☃'],
  ]) {
    assert.throws(
      () => format.head(0, { [name]: value }),
      (err) => err instanceof InvalidHeaderError && !err.message.includes(value),
    );
  }
  const broken = new RequestHeadFormat(target, { authorization: 'secret\n' }, fixed);
  assert.throws(
    () => broken.head(0, undefined),
    (err) => err instanceof InvalidHeaderError && !err.message.includes('secret'),
  );
});

test('a head with Latin-1 text goes out as Latin-1; an ASCII head with its UTF-8 body in one write', () => {
  const format = new RequestHeadFormat(target, {}, fixed);
  assert.equal(RequestHeadFormat.latin1(format.head(1, { 'x-name': 'caf\xe9' })), true);
  assert.equal(RequestHeadFormat.latin1(format.head(1, { 'x-name': 'cafe' })), false);
});

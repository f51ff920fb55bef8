import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_HEAD_BYTES, MalformedResponseError, type ResponseHead, ResponseParser } from './http-response';

/** Parses `parts` in order; returns the head, the body as text, and whether the response ended. */
function parse(parts: Array<string | Buffer>, closed = false): { head?: ResponseHead; body: string; ended: boolean; parser: ResponseParser } {
  let head: ResponseHead | undefined;
  const body: Buffer[] = [];
  let ended = false;
  const parser = new ResponseParser({
    onHead: (h) => (head = h),
    onBody: (chunk) => body.push(Buffer.from(chunk)),
    onEnd: () => (ended = true),
  });
  for (const part of parts) parser.push(typeof part === 'string' ? Buffer.from(part, 'latin1') : part);
  if (closed) parser.end();
  return { head, body: Buffer.concat(body).toString('utf8'), ended, parser };
}

/** Every split of `text` in two: what a socket may deliver. */
function splits(text: string): Array<[string, string]> {
  return Array.from({ length: text.length + 1 }, (_, i) => [text.slice(0, i), text.slice(i)]);
}

test('a content-length body ends at its length, however the bytes are split', () => {
  const wire = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 12\r\nKeep-Alive: timeout=5\r\n\r\n{"a":"\xc3\xa9!!"}';
  for (const parts of splits(wire)) {
    const { head, body, ended, parser } = parse(parts);
    assert.deepEqual(head, { status: 200, contentType: 'application/json', contentLength: 12, keepAlive: true, keepAliveSeconds: 5 });
    assert.equal(body, '{"a":"é!!"}');
    assert.ok(ended);
    assert.equal(parser.trailing, false);
  }
});

test('a chunked body with extensions and trailers ends at its last chunk, however the bytes are split', () => {
  const wire =
    'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n5;x=y\r\ndata:\r\nB\r\n {"id":1}\n\n\r\n0\r\nx-trailer: 1\r\n\r\n';
  for (const parts of splits(wire)) {
    const { head, body, ended, parser } = parse(parts);
    assert.equal(head?.contentType, 'text/event-stream');
    assert.equal(head?.contentLength, undefined);
    assert.equal(body, 'data: {"id":1}\n\n');
    assert.ok(ended, JSON.stringify(parts));
    assert.equal(parser.trailing, false);
  }
});

test('a body with neither length nor chunks runs until the connection ends, which then cannot be reused', () => {
  const open = parse(['HTTP/1.1 200 OK\r\n\r\nabc', 'def']);
  assert.equal(open.ended, false);
  assert.equal(open.parser.untilClose, true);
  const closed = parse(['HTTP/1.1 200 OK\r\n\r\nabc', 'def'], true);
  assert.equal(closed.body, 'abcdef');
  assert.ok(closed.ended);
});

test('interim responses are skipped; 204, 304 and a zero length end at the head', () => {
  const { head, body } = parse(['HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok']);
  assert.equal(head?.status, 200);
  assert.equal(body, 'ok');
  for (const status of ['204 No Content', '304 Not Modified', '202 Accepted\r\ncontent-length: 0']) {
    const empty = parse([`HTTP/1.1 ${status}\r\n\r\n`]);
    assert.ok(empty.ended, status);
  }
});

test('keep-alive: HTTP/1.1 unless the server says close; HTTP/1.0 only if it says keep-alive', () => {
  const keep = (wire: string) => parse([`${wire}\r\ncontent-length: 0\r\n\r\n`]).head?.keepAlive;
  assert.equal(keep('HTTP/1.1 200 OK'), true);
  assert.equal(keep('HTTP/1.1 200 OK\r\nConnection: Upgrade, Close'), false);
  assert.equal(keep('HTTP/1.0 200 OK'), false);
  assert.equal(keep('HTTP/1.0 200 OK\r\nconnection: keep-alive'), true);
});

test('bytes after the response mark the connection as not reusable', () => {
  assert.equal(parse(['HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokEXTRA']).parser.trailing, true);
});

test('bytes that are no response are refused: no status line, bad lengths, bad chunks, an endless head', () => {
  const refused = [
    ['SSH-2.0-OpenSSH\r\n\r\n'],
    ['HTTP/1.1 200 OK\r\ncontent-length: 12x\r\n\r\n'],
    ['HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n'],
    ['HTTP/1.1 200 OK\r\nno colon here\r\n\r\n'],
    ['HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n'],
    ['HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nokXX'],
    ['HTTP/1.1 200 OK\r\n', 'x'.repeat(MAX_HEAD_BYTES + 1)],
  ];
  for (const parts of refused) assert.throws(() => parse(parts), MalformedResponseError, JSON.stringify(parts).slice(0, 80));
});

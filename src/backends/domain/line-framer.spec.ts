import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineFramer, responseIdOf } from './line-framer';

const framer = (maxLineBytes = 16, edgeBytes = 4) => new LineFramer({ maxLineBytes, edgeBytes });

test('lines split across chunks are joined, several lines in one chunk are split', () => {
  const f = framer();
  assert.deepEqual(f.push(Buffer.from('ab')), []);
  assert.deepEqual(f.push(Buffer.from('c\r\nde\nf')), [
    { kind: 'line', text: 'abc' },
    { kind: 'line', text: 'de' },
  ]);
  assert.deepEqual(f.push(Buffer.from('\n')), [{ kind: 'line', text: 'f' }]);
});

test('a line at the cap is delivered whole', () => {
  assert.deepEqual(framer(4).push(Buffer.from('abcd\n')), [{ kind: 'line', text: 'abcd' }]);
});

test('a line over the cap keeps only its edges and the stream goes on', () => {
  const f = framer(8, 3);
  assert.deepEqual(f.push(Buffer.from('0123456')), []);
  assert.deepEqual(f.push(Buffer.from('789abcdef')), []);
  assert.ok(f.pendingBytes <= 6, 'only the edges are held');
  assert.deepEqual(f.push(Buffer.from('ghij\nok\n')), [
    { kind: 'oversized', bytes: 20, head: '012', tail: 'hij' },
    { kind: 'line', text: 'ok' },
  ]);
});

test('the edges of an over-long line are its true first and last bytes however it was chunked', () => {
  const line = 'abcdefghijklmnopqrstuvwxyz0123456789';
  for (let size = 1; size <= 7; size++) {
    const f = framer(10, 4);
    const frames = [];
    for (let i = 0; i < line.length; i += size) frames.push(...f.push(Buffer.from(line.slice(i, i + size))));
    frames.push(...f.push(Buffer.from('\n')));
    assert.deepEqual(frames, [{ kind: 'oversized', bytes: line.length, head: 'abcd', tail: '6789' }], `chunks of ${size}`);
  }
});

test('memory stays bounded however long the line is', () => {
  const f = framer(1024, 256);
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  for (let i = 0; i < 200; i++) f.push(chunk);
  assert.ok(f.pendingBytes <= 512);
  const [frame] = f.push(Buffer.from('\n'));
  assert.equal(frame.kind, 'oversized');
  assert.equal(frame.kind === 'oversized' && frame.bytes, 200 * 64 * 1024);
});

test('the id of an SDK-serialized response is read from its tail', () => {
  assert.equal(responseIdOf('{"result":{"content":[{"t', 'xxxx"}]},"jsonrpc":"2.0","id":42}'), 42);
  assert.equal(responseIdOf('{"result":{', '"jsonrpc":"2.0","id":"req-\\"7"}\r'), 'req-"7');
});

test('the id of a response serialized jsonrpc-first is read from its head', () => {
  assert.equal(responseIdOf('{"jsonrpc":"2.0","id":3,"result":{"content":[', 'xx"}]}}'), 3);
});

test('a nested "id" at the end of a result does not pass for the envelope id', () => {
  assert.equal(responseIdOf('{"result":{"items":[', '{"id":9}]}}'), undefined);
});

test('a request or notification from the server is never taken for a response', () => {
  assert.equal(responseIdOf('{"method":"sampling/createMessage","params":{', '"jsonrpc":"2.0","id":1}'), undefined);
  assert.equal(responseIdOf('{"jsonrpc":"2.0","method":"x","params":{', '"id":1}'), undefined);
});

test('no id, or a cut one, gives undefined', () => {
  assert.equal(responseIdOf('{"result":{', 'aaaaaaa'), undefined);
  assert.equal(responseIdOf('{"result":{', '"id":1.5}'), undefined);
});

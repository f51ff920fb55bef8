import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseReader } from './sse-reader';

test('an event with empty data, as servers send to prime a stream, is not an event', () => {
  assert.deepEqual(new SseReader().push('id: 1\ndata: \n\nevent: message\ndata: {}\n\n'), ['{}']);
});

test('events end at a blank line; data lines join with newlines; other fields and comments are skipped', () => {
  const reader = new SseReader();
  assert.deepEqual(reader.push(': keep-alive\nevent: message\nid: 7\ndata: {"a":\ndata:1}\n\ndata: second\n'), ['{"a":\n1}']);
  assert.deepEqual(reader.push('\n'), ['second']);
});

test('an event split anywhere, with CRLF, LF or CR line ends, reads the same (a CR at the end waits for what follows)', () => {
  const stream = 'event: message\r\ndata: {"jsonrpc":"2.0","id":"c1","result":{}}\r\n\r\ndata:x\rdata: y\r\r\n';
  for (let cut = 0; cut <= stream.length; cut++) {
    const reader = new SseReader();
    const events = [...reader.push(stream.slice(0, cut)), ...reader.push(stream.slice(cut))];
    assert.deepEqual(events, ['{"jsonrpc":"2.0","id":"c1","result":{}}', 'x\ny'], `cut at ${cut}`);
  }
});

test('a large event fed in small chunks arrives whole', () => {
  const reader = new SseReader();
  const body = 'z'.repeat(1_000_000);
  const stream = `data: ${body}\n\n`;
  const events: string[] = [];
  for (let i = 0; i < stream.length; i += 4096) events.push(...reader.push(stream.slice(i, i + 4096)));
  assert.equal(events.length, 1);
  assert.equal(events[0].length, body.length);
});

import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { eventSizeMeter, guardedFetch } from './remote-transport';

const fetchWithoutRedirects = guardedFetch();

let target: Server;
let redirector: Server;
let targetHits = 0;
let base = '';

before(async () => {
  target = createServer((req, res) => {
    targetHits++;
    const size = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('bytes') ?? 2);
    const chunked = req.url?.includes('chunked');
    const events = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('events') ?? 0);
    if (events > 0) {
      // An event stream of `events` events of `size` bytes each, the blank lines in CR LF.
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = `data: ${'b'.repeat(size)}\r\n\r\n`;
      for (let i = 0; i < events; i++) res.write(event);
      return void res.end();
    }
    res.writeHead(200, { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': String(size) }) });
    // A JSON string of `size` bytes, written in 64 KiB chunks.
    const body = Buffer.alloc(size, 0x61);
    body[0] = 0x22;
    body[size - 1] = 0x22;
    for (let i = 0; i < size; i += 65_536) res.write(body.subarray(i, i + 65_536));
    res.end();
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  const targetPort = (target.address() as { port: number }).port;
  redirector = createServer((_req, res) => {
    res.writeHead(307, { location: `http://127.0.0.1:${targetPort}/mcp` });
    res.end();
  });
  await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(redirector.address() as { port: number }).port}`;
});
after(() => {
  target.close();
  redirector.close();
});

test('a backend redirect is refused, not followed: the other host sees nothing', async () => {
  const before = targetHits;
  await assert.rejects(fetchWithoutRedirects(`${base}/mcp`, { method: 'POST', body: '{}', headers: { authorization: 'Bearer backend-secret' } }), /redirect/);
  assert.equal(targetHits, before);
});

test('a POST answer over the cap fails while it streams in, declared or chunked; smaller ones pass', async () => {
  const targetBase = base.replace(/:\d+$/, `:${(target.address() as { port: number }).port}`);
  const capped = guardedFetch(1024 * 1024);
  for (const path of ['/mcp?bytes=3000000', '/mcp?bytes=3000000&chunked=1']) {
    await assert.rejects(async () => (await capped(`${targetBase}${path}`, { method: 'POST', body: '{}' })).json(), { name: 'ResponseTooLargeError' }, path);
  }
  assert.equal(((await (await capped(`${targetBase}/mcp?bytes=1000`, { method: 'POST', body: '{}' })).json()) as string).length, 998);
});

test('a GET event stream is capped per event: many events past the cap in all pass, one event over it breaks the stream', async () => {
  const targetBase = base.replace(/:\d+$/, `:${(target.address() as { port: number }).port}`);
  const capped = guardedFetch(1024 * 1024);
  const many = await (await capped(`${targetBase}/mcp?events=300&bytes=10000`, { method: 'GET' })).text();
  assert.equal(many.length, 300 * (10_000 + 10));
  await assert.rejects(async () => (await capped(`${targetBase}/mcp?events=1&bytes=1100000`, { method: 'GET' })).text(), { name: 'ResponseTooLargeError' });
});

test('an event is measured from the last blank line, whatever the line ends and however the chunks fall', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  for (const end of ['\n', '\r', '\r\n']) {
    const meter = eventSizeMeter();
    assert.equal(meter(bytes(`data: one${end}`)), 9 + end.length);
    // The CR of a CR LF blank line ends the event; its LF is the next event's first byte.
    assert.equal(meter(bytes(end)), 9 + end.length + 1, `a blank line ends the event, and counts in it (${JSON.stringify(end)})`);
    assert.equal(meter(bytes('data: tw')), 8 + (end === '\r\n' ? 1 : 0));
    assert.equal(meter(bytes(`o${end}data: three`)), 9 + end.length + 11 + (end === '\r\n' ? 1 : 0));
  }
  const split = eventSizeMeter();
  split(bytes('data: x\r\n\r'));
  assert.equal(split(bytes('\ndata: y')), 8, 'a CR LF blank line split across chunks');
  // An event that ends in the chunk that takes it past a cap is measured whole, not from after its end.
  const ending = eventSizeMeter();
  assert.equal(ending(bytes(`data: ${'b'.repeat(100)}`)), 106);
  assert.equal(ending(bytes(`${'b'.repeat(50)}\r\n\r\ndata: z`)), 106 + 50 + 3, 'the ended event, not the one begun after it');
});

test('a POST that outlives its timeout is aborted, and the transport signal gets no lasting listener', async () => {
  const hang = createServer(() => undefined);
  await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(hang.address() as { port: number }).port}/mcp`;
  const outer = new AbortController();
  const fetchShort = guardedFetch(1024, 200);
  const started = Date.now();
  await assert.rejects(fetchShort(url, { method: 'POST', body: '{}', signal: outer.signal }));
  assert.ok(Date.now() - started < 2_000);
  assert.equal(EventEmitter.getEventListeners(outer.signal, 'abort').length, 0);
  hang.closeAllConnections();
  hang.close();
});

import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { EmbeddingsClient } from './embeddings.client';

/** A local endpoint whose answer each test sets; it records what it was sent. */
let answer: (req: IncomingMessage, body: string, res: ServerResponse) => void;
let server: Server;
let url: string;
const sockets = new Set<Socket>();

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => answer(req, body, res));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/embeddings`;
});
after(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const client = (over: { url?: string } = {}) =>
  new EmbeddingsClient({ url: over.url ?? url, model: 'm1', headers: { Authorization: 'Bearer s3cret' }, timeoutMs: 1000, batchTimeoutMs: 1000, batchSize: 8 });
const json = (res: ServerResponse, status: number, value: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
};

test('sends model, input and the configured headers; answers unit vectors in the order of the texts', async () => {
  let seen: { auth?: string; body?: unknown } = {};
  answer = (req, body, res) => {
    seen = { auth: req.headers.authorization, body: JSON.parse(body) };
    json(res, 200, {
      object: 'list',
      data: [
        { index: 1, embedding: [0, 2] },
        { index: 0, embedding: [3, 4] },
      ],
      model: 'm1',
    });
  };
  const out = await client().embed(['first', 'second'], 1000);
  assert.deepEqual(seen, { auth: 'Bearer s3cret', body: { model: 'm1', input: ['first', 'second'] } });
  assert.ok(out.ok);
  assert.deepEqual(
    out.vectors.map((v) => [...v].map((x) => Math.round(x * 10) / 10)),
    [
      [0.6, 0.8],
      [0, 1],
    ],
  );
});

test('an HTTP error answers http_error with its status', async () => {
  answer = (_req, _body, res) => json(res, 503, { error: 'overloaded' });
  assert.deepEqual(await client().embed(['x'], 1000), { ok: false, reason: 'http_error', httpStatus: 503 });
});

test('no answer within the deadline is a timeout; a closed port is unreachable', async () => {
  answer = () => undefined;
  assert.deepEqual(await client().embed(['x'], 200), { ok: false, reason: 'timeout' });
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  assert.deepEqual(await client({ url: `http://127.0.0.1:${port}/v1/embeddings` }).embed(['x'], 1000), { ok: false, reason: 'unreachable' });
});

test('a shutdown signal aborts the request at once', async () => {
  answer = () => undefined;
  const controller = new AbortController();
  const pending = client().embed(['x'], 60_000, controller.signal);
  controller.abort();
  assert.deepEqual(await pending, { ok: false, reason: 'timeout' });
});

test('anything but one vector per text, all of one length, is invalid_response', async () => {
  const bodies: unknown[] = [
    'not json',
    { data: [] },
    {
      data: [
        { index: 0, embedding: [1, 0] },
        { index: 1, embedding: [1, 0, 0] },
      ],
    },
    {
      data: [
        { index: 0, embedding: [1, 'x'] },
        { index: 1, embedding: [1, 0] },
      ],
    },
    {
      data: [
        { index: 0, embedding: [0, 0] },
        { index: 1, embedding: [1, 0] },
      ],
    },
    {
      data: [
        { index: 0, embedding: [1, 0] },
        { index: 0, embedding: [1, 0] },
      ],
    },
    {
      embeddings: [
        [1, 0],
        [0, 1],
      ],
    },
    null,
    [
      [1, 0],
      [0, 1],
    ],
    { data: { 0: { embedding: [1, 0] }, 1: { embedding: [0, 1] } } },
    { data: [null, { index: 1, embedding: [1, 0] }] },
    {
      data: [
        [1, 0],
        [0, 1],
      ],
    },
    {
      data: [
        { index: 0, embedding: '1,0' },
        { index: 1, embedding: [1, 0] },
      ],
    },
    { data: [{ index: 0 }, { index: 1, embedding: [1, 0] }] },
    {
      data: [
        { index: 1, embedding: [1, 0] },
        { index: 2, embedding: [1, 0] },
      ],
    },
  ];
  for (const body of bodies) {
    answer = (_req, _b, res) => (typeof body === 'string' ? res.end(body) : json(res, 200, body));
    assert.deepEqual(await client().embed(['a', 'b'], 1000), { ok: false, reason: 'invalid_response' }, JSON.stringify(body));
  }
});

test('without an index on every item, the order of the list is the order of the texts', async () => {
  const round = (out: Awaited<ReturnType<EmbeddingsClient['embed']>>) => (out.ok ? out.vectors.map((v) => [...v]) : out);
  answer = (_req, _b, res) => json(res, 200, { data: [{ embedding: [0, 3] }, { embedding: [5, 0] }] });
  assert.deepEqual(round(await client().embed(['a', 'b'], 1000)), [
    [0, 1],
    [1, 0],
  ]);
  answer = (_req, _b, res) =>
    json(res, 200, {
      data: [
        { index: 1, embedding: [0, 3] },
        { index: '0', embedding: [5, 0] },
      ],
    });
  assert.deepEqual(round(await client().embed(['a', 'b'], 1000)), [
    [0, 1],
    [1, 0],
  ]);
});

test('a redirect is not followed (it would carry the credentials elsewhere)', async () => {
  answer = (_req, _body, res) => {
    res.writeHead(307, { location: 'http://127.0.0.1:9/elsewhere' });
    res.end();
  };
  const out = await client().embed(['x'], 1000);
  assert.equal(out.ok, false);
});

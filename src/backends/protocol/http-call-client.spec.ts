import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { after, before, beforeEach, test } from 'node:test';
import { waitFor } from '../../../test/support/backend-processes';
import { RouterError } from '../../common/router-error';
import { ConnectionLostError } from '../domain/backend-failures';
import { HttpCallClient } from './http-call-client';

/** One received POST: its headers and JSON-RPC message. */
interface Received {
  headers: IncomingHttpHeaders;
  message: { id?: string; method: string; params: Record<string, unknown> };
}

type Responder = (message: Received['message'], res: ServerResponse) => void;

const SESSION = { sessionId: 'session-1', protocolVersion: '2025-06-18' };
const result = (text: string) => ({ content: [{ type: 'text', text }] });
const json = (res: ServerResponse, body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

let server: Server;
let url: URL;
let received: Received[] = [];
let respond: Responder = () => undefined;
let closedRequests = 0;

before(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const message = JSON.parse(body) as Received['message'];
      received.push({ headers: req.headers, message });
      if (message.method === 'notifications/cancelled') return void res.writeHead(202).end();
      respond(message, res);
    });
    res.on('close', () => closedRequests++);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`);
});
after(() => {
  server.closeAllConnections();
  server.close();
});
beforeEach(() => {
  received = [];
  closedRequests = 0;
});

function client(maxResponseBytes = 1024 * 1024, target = url, maxSockets?: number): HttpCallClient {
  return new HttpCallClient({ backend: 'files', url: target, headers: { authorization: 'Bearer backend-token' }, maxResponseBytes, maxSockets });
}

test('a JSON answer is the result; the backend gets its configured headers and the session, nothing else', async () => {
  respond = (m, res) => json(res, { jsonrpc: '2.0', id: m.id, result: { ...result('hi'), structuredContent: { n: 1 }, _meta: { x: 1 } } });
  const calls = client();
  assert.deepEqual(await calls.callTool(SESSION, 'read', { path: '/a' }, 1000), { ...result('hi'), structuredContent: { n: 1 } });
  const [{ headers, message }] = received;
  assert.equal(message.method, 'tools/call');
  assert.deepEqual(message.params, { name: 'read', arguments: { path: '/a' } });
  assert.match(String(message.id), /^c\d+$/, 'string ids never collide with the SDK client numeric ids');
  assert.equal(headers.authorization, 'Bearer backend-token');
  assert.equal(headers['mcp-session-id'], 'session-1');
  assert.equal(headers['mcp-protocol-version'], '2025-06-18');
  assert.deepEqual(Object.keys(headers).sort(), [
    'accept',
    'authorization',
    'connection',
    'content-length',
    'content-type',
    'host',
    'mcp-protocol-version',
    'mcp-session-id',
  ]);
  calls.close();
});

test('an event-stream answer is read past notifications and other ids to the answer to this call', async () => {
  respond = (m, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } })}\n\n`);
    res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: 'other', result: result('not mine') })}\n\n`);
    res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: result('mine') }).slice(0, 20)}`);
    res.end(`${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: result('mine') }).slice(20)}\n\n`);
  };
  const calls = client();
  assert.deepEqual(await calls.callTool(SESSION, 'read', {}, 1000), result('mine'));
  calls.close();
});

test('answers over the cap fail their own call, declared or not; the next call on the pool works', async () => {
  let declared = false;
  respond = (m, res) => {
    if (m.params.name === 'small') return json(res, { jsonrpc: '2.0', id: m.id, result: result('ok') });
    const text = 'x'.repeat(300_000);
    const body = JSON.stringify({ jsonrpc: '2.0', id: m.id, result: result(text) });
    res.writeHead(200, { 'content-type': 'application/json', ...(declared ? { 'content-length': String(Buffer.byteLength(body)) } : {}) });
    for (let i = 0; i < body.length; i += 16_384) res.write(body.slice(i, i + 16_384));
    res.end();
  };
  const calls = client(100_000);
  for (declared of [false, true]) {
    await assert.rejects(calls.callTool(SESSION, 'huge', {}, 2000), { name: 'ResponseTooLargeError' });
  }
  assert.deepEqual(await calls.callTool(SESSION, 'small', {}, 2000), result('ok'));
  calls.close();
});

test('a call past its deadline answers backend_timeout, its request is closed, and the backend is told', async () => {
  respond = () => undefined; // never answers
  const calls = client();
  // The server never answers: backend_timeout naming the deadline is the deadline's doing.
  await assert.rejects(
    calls.callTool(SESSION, 'slow', {}, 200),
    (err) => err instanceof RouterError && err.code === 'backend_timeout' && /200 ms/.test(err.message),
  );
  await waitFor(() => closedRequests >= 1 && received.length >= 2, 60_000, 'the request closed and the cancellation received');
  assert.ok(closedRequests >= 1, 'the hung request was closed');
  const cancelled = received.find((r) => r.message.method === 'notifications/cancelled');
  assert.equal(cancelled?.message.params.requestId, received[0].message.id);
  assert.equal(cancelled?.headers['mcp-session-id'], 'session-1');
  calls.close();
});

test('a call given up at its deadline on a reused pooled socket is never sent again', async () => {
  const calls = client();
  respond = (m, res) => json(res, { jsonrpc: '2.0', id: m.id, result: result('pooled') });
  await calls.callTool(SESSION, 'read', {}, 1000);
  respond = () => undefined; // never answers: the call is torn down at its deadline
  await assert.rejects(calls.callTool(SESSION, 'slow', {}, 150), (err) => err instanceof RouterError && err.code === 'backend_timeout');
  await new Promise((r) => setTimeout(r, 300));
  const sent = received.filter((r) => r.message.method === 'tools/call').map((r) => r.message.id);
  assert.equal(sent.length, 2, JSON.stringify(sent));
  assert.equal(new Set(sent).size, 2);
  calls.close();
});

test("a JSON-RPC error answers backend_failed with its code and never the backend's message", async () => {
  respond = (m, res) => json(res, { jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'bad path /secret/canary' } });
  const calls = client();
  await assert.rejects(
    calls.callTool(SESSION, 'read', {}, 1000),
    (err) => err instanceof RouterError && err.code === 'backend_failed' && /-32602/.test(err.message) && !/canary/.test(err.message),
  );
  calls.close();
});

test('malformed answers, statuses and redirects fail the call; a lost session and a refused connection say the backend is gone', async () => {
  const calls = client();
  const cases: Array<[Responder, (err: unknown) => boolean]> = [
    [
      (_m, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":'),
      (e) => e instanceof RouterError && /malformed/.test(e.message),
    ],
    [(m, res) => json(res, { jsonrpc: '2.0', id: m.id, result: { content: 'no' } }), (e) => e instanceof RouterError && /malformed/.test(e.message)],
    [
      (_m, res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end(': nothing\n\n'),
      (e) => e instanceof RouterError && /without a result/.test(e.message),
    ],
    [(_m, res) => res.writeHead(500).end('oops'), (e) => e instanceof RouterError && /HTTP 500/.test(e.message)],
    [(_m, res) => res.writeHead(307, { location: 'http://example.com/' }).end(), (e) => e instanceof RouterError && /redirect/.test(e.message)],
    [(_m, res) => res.writeHead(404).end(), (e) => e instanceof ConnectionLostError],
  ];
  for (const [responder, expected] of cases) {
    respond = responder;
    await assert.rejects(calls.callTool(SESSION, 'read', {}, 1000), expected);
  }
  calls.close();
  const closedPort = createServer();
  await new Promise<void>((r) => closedPort.listen(0, '127.0.0.1', r));
  const gone = new URL(`http://127.0.0.1:${(closedPort.address() as { port: number }).port}/mcp`);
  await new Promise<void>((r) => closedPort.close(() => r()));
  await assert.rejects(client(1024, gone).callTool(SESSION, 'read', {}, 1000), ConnectionLostError);
});

test('a pooled socket the server dropped as it was reused is retried once on a fresh one', async () => {
  // A server that answers the first request on each connection and drops the connection on the
  // second, without the Keep-Alive hint that would have retired it: what a stale socket looks like.
  const answer = (id: string) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id, result: result('ok') });
    return `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: keep-alive\r\n\r\n${body}`;
  };
  let connections = 0;
  const flaky: NetServer = createNetServer((socket) => {
    connections++;
    let requests = 0;
    socket.on('data', (chunk) => {
      const id = /"id":"(c\d+)"/.exec(chunk.toString())?.[1];
      if (!id) return;
      if (++requests === 1) socket.write(answer(id));
      else socket.destroy();
    });
  });
  await new Promise<void>((r) => flaky.listen(0, '127.0.0.1', r));
  const calls = client(1024, new URL(`http://127.0.0.1:${(flaky.address() as { port: number }).port}/mcp`));
  assert.deepEqual(await calls.callTool(SESSION, 'read', {}, 1000), result('ok'));
  assert.deepEqual(await calls.callTool(SESSION, 'read', {}, 1000), result('ok'));
  assert.equal(connections, 2);
  calls.close();
  flaky.close();
});

test('connections to a backend are bounded: calls beyond wait for one, and still answer at their deadline', async () => {
  let open = 0;
  let most = 0;
  const hang = createServer((req) => {
    open++;
    most = Math.max(most, open);
    req.on('close', () => open--);
  });
  await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
  const calls = client(1024, new URL(`http://127.0.0.1:${(hang.address() as { port: number }).port}/mcp`), 2);
  // Six calls on two connections that never free up: a queued call's deadline runs from its own
  // start (1 s), kept with a margin of five; counted from a free connection it would never come.
  const started = performance.now();
  const answers = await Promise.allSettled(Array.from({ length: 6 }, () => calls.callTool(SESSION, 'read', {}, 1000)));
  assert.ok(answers.every((a) => a.status === 'rejected' && a.reason instanceof RouterError && a.reason.code === 'backend_timeout'));
  assert.ok(performance.now() - started < 5 * 1000, 'queued calls time out at their own deadline');
  assert.equal(most, 2);
  calls.close();
  hang.closeAllConnections();
  hang.close();
});

const MODERN = { envelope: { meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } };

test('2026-07-28: a call carries _meta, Mcp-Method, Mcp-Name, its Mcp-Param headers, and no session', async () => {
  respond = (m, res) => json(res, { jsonrpc: '2.0', id: m.id, result: { ...result('ok'), resultType: 'complete' } });
  const calls = client();
  assert.deepEqual(await calls.callTool(MODERN, 'get weather ✓', { region: 'eu' }, 1000, { 'mcp-param-region': 'eu' }), result('ok'));
  const [{ headers, message }] = received;
  assert.deepEqual(message.params, { name: 'get weather ✓', arguments: { region: 'eu' }, _meta: MODERN.envelope.meta });
  assert.equal(headers['mcp-method'], 'tools/call');
  assert.equal(headers['mcp-name'], `=?base64?${Buffer.from('get weather ✓').toString('base64')}?=`);
  assert.equal(headers['mcp-protocol-version'], '2026-07-28');
  assert.equal(headers['mcp-param-region'], 'eu');
  assert.equal(headers['mcp-session-id'], undefined);
  calls.close();
});

test('2026-07-28: a call past its deadline is cancelled by closing its request, with no notification', async () => {
  respond = () => undefined;
  const calls = client();
  await assert.rejects(calls.callTool(MODERN, 'slow', {}, 200), (err) => err instanceof RouterError && err.code === 'backend_timeout');
  await waitFor(() => closedRequests >= 1, 60_000, 'the request closed');
  assert.ok(closedRequests >= 1, 'the hung request was closed');
  assert.deepEqual(
    received.map((r) => r.message.method),
    ['tools/call'],
  );
  calls.close();
});

test('request(): a 4xx JSON body is an answer for the caller to judge; a body that is not JSON is undefined', async () => {
  respond = (m, res) =>
    res
      .writeHead(400, { 'content-type': 'application/json' })
      .end(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32022, message: 'x', data: { supported: ['2026-07-28'] } } }));
  const calls = client();
  const answer = await calls.request(MODERN, 'server/discover', {}, 1000);
  assert.equal(answer.status, 400);
  assert.equal((answer.message as { error: { code: number } }).error.code, -32022);
  assert.equal(received[0].headers['mcp-method'], 'server/discover');
  respond = (_m, res) => res.writeHead(405, { 'content-type': 'text/plain' }).end('Method Not Allowed');
  assert.deepEqual(await calls.request(MODERN, 'server/discover', {}, 1000), { status: 405, message: undefined });
  respond = (_m, res) => res.writeHead(500).end();
  await assert.rejects(calls.request(MODERN, 'server/discover', {}, 1000), (err) => err instanceof RouterError && /HTTP 500/.test(err.message));
  calls.close();
});

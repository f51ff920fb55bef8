import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { waitFor } from '../../../test/support/backend-processes';
import { ConnectionBrokeError } from '../domain/backend-failures';
import { InvalidHeaderError } from '../domain/http-request';
import { HttpCallClient } from '../protocol/http-call-client';

/** The repository's test fixtures: a self-signed certificate for `localhost` and its key. */
const FIXTURES = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures');
const CERT = join(FIXTURES, 'tls-localhost.crt');
const SESSION = { sessionId: 'session-1', protocolVersion: '2025-06-18' };
const answerOf = (id: string, text: string) => JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
const idOf = (request: string) => /"id":"(c\d+)"/.exec(request)?.[1];

const servers: Array<NetServer | HttpsServer> = [];
after(() => {
  for (const server of servers) server.close();
});

/** A raw HTTP/1.1 server: `reply` writes each request's answer as bytes; its sockets are counted and watched. */
async function rawServer(reply: (id: string, socket: Socket) => void): Promise<{ url: URL; sockets: Socket[]; ended: Socket[] }> {
  const sockets: Socket[] = [];
  const ended: Socket[] = [];
  const server = createNetServer((socket) => {
    sockets.push(socket);
    socket.on('end', () => ended.push(socket));
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      const id = idOf(chunk.toString());
      if (id) reply(id, socket);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`), sockets, ended };
}

function client(url: URL): HttpCallClient {
  return new HttpCallClient({ backend: 'files', url, headers: { authorization: 'Bearer backend-token' }, maxResponseBytes: 1024 * 1024 });
}

test('chunked answers and answers framed by the end of the connection are read whole; a closed connection is not reused', async () => {
  const backend = await rawServer((id, socket) => {
    const body = answerOf(id, 'framed');
    if (backend.sockets.length === 1) {
      const half = Math.floor(body.length / 2);
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`);
      socket.write(`${half.toString(16)}\r\n${body.slice(0, half)}\r\n`);
      socket.write(`${(body.length - half).toString(16)}\r\n${body.slice(half)}\r\n0\r\n\r\n`);
      return;
    }
    socket.end(`HTTP/1.0 200 OK\r\ncontent-type: application/json\r\n\r\n${body}`);
  });
  const calls = client(backend.url);
  const expected = { content: [{ type: 'text', text: 'framed' }] };
  assert.deepEqual(await calls.callTool(SESSION, 'read', {}, 5000), expected, 'chunked, on the first connection');
  backend.sockets[0].destroy();
  await waitFor(() => backend.sockets[0].destroyed, 10_000, 'the first connection closed');
  assert.deepEqual(await calls.callTool(SESSION, 'read', {}, 5000), expected, 'framed by the end of the second connection');
  assert.deepEqual(await calls.callTool(SESSION, 'read', {}, 5000), expected, 'on a third connection');
  assert.equal(backend.sockets.length, 3);
  calls.close();
});

test('an answer that fails its call (a JSON-RPC error) or a 4xx answer to a request leaves its connection to be reused', async () => {
  let calls = 0;
  const backend = await rawServer((id, socket) => {
    calls++;
    const body = calls === 1 ? JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message: 'no' } }) : answerOf(id, 'ok');
    const status = calls === 2 ? '400 Bad Request' : '200 OK';
    socket.write(`HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
  const backendCalls = client(backend.url);
  await assert.rejects(backendCalls.callTool(SESSION, 'read', {}, 5000), /-32602/);
  assert.equal((await backendCalls.request(SESSION, 'ping', {}, 5000)).status, 400);
  assert.deepEqual(await backendCalls.callTool(SESSION, 'read', {}, 5000), { content: [{ type: 'text', text: 'ok' }] });
  assert.equal(backend.sockets.length, 1);
  backendCalls.close();
});

test("an idle connection is closed a second before the server's Keep-Alive hint", async () => {
  const backend = await rawServer((id, socket) => {
    const body = answerOf(id, 'ok');
    socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nkeep-alive: timeout=2\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
  const calls = client(backend.url);
  await calls.callTool(SESSION, 'read', {}, 5000);
  // The server never closes it: the end it sees is the client's.
  await waitFor(() => backend.ended.length === 1, 30_000, 'the client closed the idle connection');
  calls.close();
});

test('a header no request can carry fails its call, and nothing is sent', async () => {
  const backend = await rawServer(() => undefined);
  const calls = client(backend.url);
  await assert.rejects(calls.callTool(SESSION, 'read', {}, 5000, { 'mcp-param-region': 'eu\r\nx-injected: 1' }), InvalidHeaderError);
  assert.equal(backend.sockets.length, 0);
  calls.close();
});

test('https: the backend certificate is checked against the trusted roots, with the server name sent', async () => {
  const names: Array<string | false | null> = [];
  const server = createHttpsServer({ cert: readFileSync(CERT), key: readFileSync(join(FIXTURES, 'tls-localhost.key')) }, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(answerOf(idOf(body) ?? '', 'secure')));
  });
  server.on('secureConnection', (socket: TLSSocket) => names.push(socket.servername));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = new URL(`https://localhost:${(server.address() as { port: number }).port}/mcp`);
  // Not a trusted root in this process: the connection is refused, never used.
  await assert.rejects(client(url).callTool(SESSION, 'read', {}, 5000), (err) => err instanceof ConnectionBrokeError && /CERT/.test(err.message));
  // Trusted in a process started with it as an extra root (the operator's way to trust a private CA).
  const script = `
    const { HttpCallClient } = require(${JSON.stringify(join(__dirname, '..', 'protocol', 'http-call-client.js'))});
    const calls = new HttpCallClient({ backend: 'files', url: new URL(${JSON.stringify(url.href)}), headers: {}, maxResponseBytes: 65536 });
    calls.callTool(${JSON.stringify(SESSION)}, 'read', {}, 5000).then((r) => { console.log(JSON.stringify(r)); calls.close(); }, (e) => { console.error(e); process.exit(1); });`;
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['-e', script], { env: { PATH: process.env.PATH ?? '', NODE_EXTRA_CA_CERTS: CERT } }, (err, out, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(out),
    ),
  );
  assert.deepEqual(JSON.parse(stdout), { content: [{ type: 'text', text: 'secure' }] });
  assert.ok(names.includes('localhost'), JSON.stringify(names));
});

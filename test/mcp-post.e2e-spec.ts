import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { until } from './support/backend-processes';
import { captureLogs } from './support/logs';
import { rawConnection, rawRequest, requestText } from './support/raw-http';
import { startRouter, testConfig, type RpcAnswer, type RunningRouter } from './support/router';

/**
 * POST /mcp byte for byte as HTTP clients may send it: the media types the endpoint reads and the
 * ones it refuses, bodies past the limit, the correlation id, keep-alive, and a client that
 * leaves half-way. The router answers each as it always has, head and body in one answer with
 * its length.
 */

const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
const BODY_LIMIT = 2_000;
const PONG = '{"jsonrpc":"2.0","id":1,"result":{}}';

describe('POST /mcp over raw HTTP', () => {
  let router: RunningRouter;
  let port: number;
  let logs: ReturnType<typeof captureLogs>;

  before(async () => {
    logs = captureLogs();
    router = await startRouter(
      testConfig([], { logLevel: 'debug', http: { host: '127.0.0.1', port: 0, bodyLimitBytes: BODY_LIMIT, allowedHosts: [], allowedOrigins: [] } }),
    );
    port = Number(new URL(router.url).port);
  });
  after(async () => {
    await router.close();
    logs.stop();
  });

  const post = (headerLines: string[], body: string) => rawRequest(port, requestText('/mcp', headerLines, body), { giveUpMs: 30_000 });
  const header = (head: string, name: string) => new RegExp(`\\r\\n${name}: ([^\\r]*)`, 'i').exec(head)?.[1];

  test('JSON and plain-text bodies are read, whatever the case of the type and its parameters; the answer has its length', async () => {
    for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'text/plain']) {
      const answer = await post([`Content-Type: ${type}`, `Content-Length: ${PING.length}`], PING);
      assert.equal(answer.status, 200, type);
      assert.equal(answer.body, PONG, type);
      assert.equal(header(answer.head, 'content-type'), 'application/json; charset=utf-8');
      assert.equal(header(answer.head, 'content-length'), String(PONG.length));
      assert.equal(header(answer.head, 'transfer-encoding'), undefined);
    }
    const chunked = await post(['Content-Type: application/json', 'Transfer-Encoding: chunked'], `${PING.length.toString(16)}\r\n${PING}\r\n0\r\n\r\n`);
    assert.equal(chunked.body, PONG);
  });

  test('another media type, or a body without one, is 415 and never read; no type and no body is a JSON-RPC parse error', async () => {
    for (const type of ['application/jsonx', 'application/vnd.api+json', 'text/html']) {
      const answer = await post([`Content-Type: ${type}`, `Content-Length: ${PING.length}`], PING);
      assert.equal(answer.status, 415, type);
      assert.deepEqual(JSON.parse(answer.body), { statusCode: 415, message: 'Unsupported Media Type' });
    }
    assert.equal((await post([`Content-Length: ${PING.length}`], PING)).status, 415);
    const empty = await post(['Content-Length: 0'], '');
    assert.equal(empty.status, 400);
    assert.equal((JSON.parse(empty.body) as RpcAnswer).error.code, -32700);
  });

  test('a body past the limit is 413: announced, before it is sent, and its connection closed; or chunked, once it passes the limit', async () => {
    const announced = await rawRequest(port, requestText('/mcp', ['Content-Type: application/json', `Content-Length: ${BODY_LIMIT + 1}`], '{'), {
      untilClose: true,
      giveUpMs: 30_000,
    });
    assert.equal(announced.status, 413);
    assert.ok(announced.closedByServer);
    assert.deepEqual(JSON.parse(announced.body), { statusCode: 413, message: 'Request body is too large' });
    const big = 'x'.repeat(BODY_LIMIT + 1);
    const chunked = await post(['Content-Type: application/json', 'Transfer-Encoding: chunked'], `${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`);
    assert.equal(chunked.status, 413);
  });

  test('the correlation id: a sane x-request-id comes back as sent, anything else is replaced by a UUID', async () => {
    const sent = await post(['Content-Type: application/json', 'X-Request-Id: trace-42', `Content-Length: ${PING.length}`], PING);
    assert.equal(header(sent.head, 'x-request-id'), 'trace-42');
    for (const lines of [[], ['X-Request-Id: has spaces']]) {
      const answer = await post(['Content-Type: application/json', ...lines, `Content-Length: ${PING.length}`], PING);
      assert.match(header(answer.head, 'x-request-id') ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
  });

  test('two requests on one keep-alive connection are answered in order', async () => {
    const ping = (id: number, lines: string[] = []) => {
      const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
      return requestText('/mcp', ['Content-Type: application/json', ...lines, `Content-Length: ${body.length}`], body);
    };
    let text = '';
    await rawConnection(
      port,
      (socket) => {
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        socket.write(ping(1) + ping(2, ['Connection: close']));
      },
      { untilClose: true, giveUpMs: 30_000 },
    );
    assert.ok(text.indexOf('"id":1') < text.indexOf('"id":2'));
    assert.equal(text.match(/HTTP\/1\.1 200 OK/g)?.length, 2);
  });

  test('a client that leaves half-way through its body is logged at debug under its request id, and nothing is answered', async () => {
    await rawConnection(
      port,
      (socket) => {
        socket.write(requestText('/mcp', ['Content-Type: application/json', 'X-Request-Id: leaver-1', 'Content-Length: 100'], '{"jsonrpc"'));
        setTimeout(() => socket.destroy(), 100);
      },
      { giveUpMs: 30_000 },
    ).catch(() => undefined);
    await until(
      () => Promise.resolve(logs.lines().some((l) => l.requestId === 'leaver-1' && l.message === 'client went away before its request was read')),
      30_000,
      'the debug line',
    );
  });
});

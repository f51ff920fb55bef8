import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { LEGACY_VERSIONS, PROTOCOL_VERSIONS } from '../src/mcp/domain/protocol-versions';
import { until } from './support/backend-processes';
import { rawConnection, rawRequest, requestText } from './support/raw-http';
import { captureLogs } from './support/logs';
import { startRouter, testConfig, type RpcAnswer, type RunningRouter } from './support/router';

/**
 * The /mcp edge over raw sockets: what HTTP client libraries never send
 * (repeated Authorization headers, bodies that stop half-way, headers that never end) is answered
 * as the README promises, and nobody holds the router's memory or connections without a credential.
 * The protocol versions the router lists are each served end to end.
 */

const sha256 = (key: string) => createHash('sha256').update(key).digest('hex');
const ALICE = 'alice-key-' + 'a'.repeat(32);
const BOB = 'bob-key-' + 'b'.repeat(32);
const PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
const JSON_HEADERS = ['Content-Type: application/json', 'Accept: application/json, text/event-stream'];
/** The time to receive one request, short so a test sees it pass. */
const REQUEST_TIMEOUT_MS = 1500;

const portOf = (router: RunningRouter) => Number(new URL(router.url).port);

describe('edge: credentials and slow clients, with API keys', () => {
  let router: RunningRouter;
  let port: number;
  const held: Socket[] = [];

  before(async () => {
    router = await startRouter(
      testConfig([], {
        http: { host: '127.0.0.1', port: 0, bodyLimitBytes: 4 * 1024 * 1024, allowedHosts: [], allowedOrigins: [], requestTimeoutMs: REQUEST_TIMEOUT_MS },
        auth: {
          mode: 'apiKeys',
          allowInsecure: false,
          apiKeys: [
            { principal: 'alice', sha256: sha256(ALICE), groups: ['readers'] },
            { principal: 'bob', sha256: sha256(BOB), groups: ['admins'] },
          ],
        },
      }),
    );
    port = portOf(router);
  });
  after(async () => {
    for (const socket of held) socket.destroy();
    await router.close();
  });

  const ping = (headerLines: string[]) => rawRequest(port, requestText('/mcp', [...JSON_HEADERS, ...headerLines, `Content-Length: ${PING.length}`], PING));

  test('one valid Authorization header is accepted', async () => {
    const answer = await ping([`Authorization: Bearer ${ALICE}`]);
    assert.equal(answer.status, 200, answer.head);
    assert.equal((JSON.parse(answer.body) as { result?: unknown }).result !== undefined, true);
  });

  test('two Authorization headers are refused 400, whatever their order, case or values', async () => {
    for (const lines of [
      [`Authorization: Bearer ${ALICE}`, 'Authorization: Bearer bogus'],
      ['Authorization: Bearer bogus', `Authorization: Bearer ${ALICE}`],
      [`Authorization: Bearer ${ALICE}`, `authorization: Bearer ${BOB}`],
      [`AUTHORIZATION: Bearer ${ALICE}`, `Authorization: Bearer ${ALICE}`],
      [`Authorization: Bearer ${ALICE}`, 'Authorization: Basic YWxpY2U6aw=='],
    ]) {
      const answer = await ping(lines);
      assert.equal(answer.status, 400, `${lines.map((l) => l.split(':')[0]).join(' + ')}: ${answer.head}`);
      assert.match(answer.head, /www-authenticate: Bearer .*error="invalid_request"/i);
      assert.equal((JSON.parse(answer.body) as { error?: unknown }).error, 'invalid_request');
      assert.doesNotMatch(answer.head + answer.body, /alice-key|bob-key/);
    }
  });

  test('without a valid credential the answer comes before the body, and the connection is closed', async () => {
    // 4 MB announced, none of it sent: a router that read the body first would wait for ever.
    for (const credential of [[], ['Authorization: Bearer not-a-key']]) {
      const answer = await rawRequest(port, requestText('/mcp', [...JSON_HEADERS, ...credential, 'Content-Length: 4000000']), { untilClose: true });
      assert.equal(answer.status, 401, answer.head);
      assert.equal(answer.closedByServer, true);
      assert.match(answer.head, /connection: close/i);
    }
  });

  test('a body that stops half-way is timed out and its connection closed', async () => {
    const answer = await rawConnection(
      port,
      (socket) => socket.write(requestText('/mcp', [...JSON_HEADERS, `Authorization: Bearer ${ALICE}`, 'Content-Length: 1000'], '{"jsonrpc":')),
      { untilClose: true },
    );
    assert.equal(answer.closedByServer, true);
    // Node answers 408 when it can; an empty answer (just the close) is as good.
    assert.ok(answer.status === 408 || answer.status === 0, answer.head);
  });

  test('headers that never end are timed out', async () => {
    const answer = await rawConnection(port, (socket) => socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: '), { untilClose: true });
    assert.equal(answer.closedByServer, true);
  });

  test('health answers while slow bodies are held open', async () => {
    for (let i = 0; i < 20; i++) {
      const pending = rawConnection(port, (socket) => {
        held.push(socket);
        socket.write(requestText('/mcp', [...JSON_HEADERS, `Authorization: Bearer ${ALICE}`, 'Content-Length: 100000'], 'x'.repeat(50_000)));
      });
      pending.catch(() => undefined);
    }
    const live = await fetch(router.url.replace('/mcp', '/health/live'));
    assert.equal(live.status, 200);
  });
});

describe('edge: what bodies may hold, without authentication (mode none)', () => {
  const BODY_LIMIT = 65_536;
  let router: RunningRouter;
  let logs: ReturnType<typeof captureLogs>;
  const held: Socket[] = [];

  before(async () => {
    logs = captureLogs();
    router = await startRouter(testConfig([], { http: { host: '127.0.0.1', port: 0, bodyLimitBytes: BODY_LIMIT, allowedHosts: [], allowedOrigins: [] } }));
  });
  after(async () => {
    for (const socket of held) socket.destroy();
    await router.close();
    logs.stop();
  });

  test('bodies being received are capped as a whole: past the cap a request is refused 503 before its body is read', async () => {
    const port = portOf(router);
    // Each announces a full body and sends half of it, then stalls.
    const open = () =>
      rawConnection(
        port,
        (socket) => {
          held.push(socket);
          socket.write(requestText('/mcp', [...JSON_HEADERS, `Content-Length: ${BODY_LIMIT}`], 'x'.repeat(BODY_LIMIT / 2)));
        },
        { giveUpMs: 60_000 },
      );
    const answers: Promise<{ status: number }>[] = [];
    let refused: { status: number; head: string } | undefined;
    // The cap is 16 whole bodies (README "Operations"); the 17th must not be held.
    for (let i = 0; i < 17 && refused === undefined; i++) {
      const pending = open();
      answers.push(pending);
      if (i === 16) refused = await pending;
    }
    assert.ok(refused, 'the 17th request was answered');
    assert.equal(refused.status, 503, refused.head);
    assert.match(refused.head, /retry-after: \d+/i);
    for (const a of answers) a.catch(() => undefined);
    for (const socket of held) socket.destroy();
    // Once those are gone (the router learns it from their close), a request is served again.
    await until(
      async () => (await rawRequest(port, requestText('/mcp', [...JSON_HEADERS, `Content-Length: ${PING.length}`], PING))).status === 200,
      60_000,
      'a request served again once the held bodies are gone',
    );
    // Sixteen clients went away mid-body: nothing for an operator to act on.
    assert.deepEqual(
      logs.lines().filter((l) => l.level === 'error'),
      [],
    );
  });
});

describe('edge: protocol versions', () => {
  let router: RunningRouter;
  before(async () => {
    router = await startRouter(testConfig([]));
  });
  after(async () => router.close());

  const rpc = async (message: object, version?: string) => {
    const response = await fetch(router.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(version !== undefined ? { 'mcp-protocol-version': version } : {}),
      },
      body: JSON.stringify(message),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as RpcAnswer) };
  };
  const initialize = (protocolVersion: string) =>
    rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });

  for (const version of LEGACY_VERSIONS) {
    test(`${version}: initialize, initialized, tools/list and tools/call with its header`, async () => {
      assert.equal((await initialize(version)).body!.result.protocolVersion, version);
      assert.equal((await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }, version)).status, 202);
      const list = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, version);
      assert.equal(list.status, 200);
      assert.deepEqual(
        list.body!.result.tools.map((t) => t.name),
        ['find_tool', 'invoke_read_tool', 'invoke_read_tool_batch'],
      );
      const call = await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'find_tool', arguments: { query: 'anything' } } }, version);
      assert.equal(call.status, 200);
      assert.equal(call.body!.result.isError, false);
    });
  }

  test('a version the router does not implement is negotiated to its newest legacy one; an unknown header value is 400', async () => {
    for (const asked of ['2025-03-26', '2099-01-01', '2026-07-28'])
      assert.equal((await initialize(asked)).body!.result.protocolVersion, LEGACY_VERSIONS[0], asked);
    for (const header of ['2099-01-01', 'latest', '2025-03-26']) {
      const answer = await rpc({ jsonrpc: '2.0', id: 4, method: 'tools/list' }, header);
      assert.equal(answer.status, 400, header);
      assert.equal(answer.body!.id, 4);
      assert.equal(answer.body!.error.code, -32022);
      assert.deepEqual(answer.body!.error.data, { supported: PROTOCOL_VERSIONS, requested: header });
    }
    // Without the header (clients older than it) the request is served.
    assert.equal((await rpc({ jsonrpc: '2.0', id: 5, method: 'tools/list' })).status, 200);
  });
});

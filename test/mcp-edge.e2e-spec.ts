import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { filesBackend, startRouter, tempDir, testConfig, type RpcAnswer, type RunningRouter } from './support/router';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request, so tests control Host, Origin and the body byte for byte. */
function send(url: string, method: string, body: string | undefined, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

describe('the /mcp edge', () => {
  let router: RunningRouter;
  const post = (body: string, headers: Record<string, string> = {}) => send(router.url, 'POST', body, headers);
  const rpc = (message: unknown, headers: Record<string, string> = {}) => post(JSON.stringify(message), headers);

  before(async () => {
    router = await startRouter(
      testConfig([filesBackend(tempDir())], {
        http: { host: '127.0.0.1', port: 0, bodyLimitBytes: 65_536, allowedHosts: [], allowedOrigins: ['https://app.example'] },
      }),
    );
  });
  after(async () => router.close());

  test('initialize negotiates a supported protocol version and answers as application/json', async () => {
    const reply = await rpc({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    assert.equal(reply.status, 200);
    assert.match(String(reply.headers['content-type']), /application\/json/);
    const body = JSON.parse(reply.body) as RpcAnswer;
    assert.equal(body.id, 1);
    assert.equal(body.result.protocolVersion, '2025-06-18');
    assert.equal(body.result.serverInfo.name, 'centralmcp-router');
    const unknownVersion = JSON.parse(
      (
        await rpc({
          jsonrpc: '2.0',
          id: 2,
          method: 'initialize',
          params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        })
      ).body,
    ) as RpcAnswer;
    assert.match(unknownVersion.result.protocolVersion, /^\d{4}-\d{2}-\d{2}$/);
    assert.notEqual(unknownVersion.result.protocolVersion, '1999-01-01');
  });

  test('ping answers an empty result and ids come back as sent', async () => {
    for (const id of [0, 'abc', 'ünïcødé-✓', Number.MAX_SAFE_INTEGER, 'x'.repeat(256)]) {
      const body = JSON.parse((await rpc({ jsonrpc: '2.0', id, method: 'ping' })).body) as unknown;
      assert.deepEqual(body, { jsonrpc: '2.0', id, result: {} });
    }
  });

  test('notifications are accepted with 202 and no body', async () => {
    const reply = await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(reply.status, 202);
    assert.equal(reply.body, '');
  });

  test('malformed JSON is a JSON-RPC parse error, never a 500', async () => {
    for (const body of ['{', 'not json', '{"jsonrpc":"2.0",', '']) {
      const reply = await post(body);
      assert.equal(reply.status, 400, body);
      assert.equal((JSON.parse(reply.body) as RpcAnswer).error.code, -32700, body);
    }
  });

  test('JSON-RPC batch arrays, non-messages and bad ids are invalid requests', async () => {
    const cases: unknown[] = [
      [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
      42,
      'ping',
      { jsonrpc: '1.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 1.5, method: 'ping' },
      { jsonrpc: '2.0', id: 'x'.repeat(257), method: 'ping' },
      { jsonrpc: '2.0', id: 1 },
    ];
    for (const message of cases) {
      const reply = await rpc(message);
      assert.equal(reply.status, 400, JSON.stringify(message).slice(0, 60));
      const body = JSON.parse(reply.body) as RpcAnswer;
      assert.equal(body.error.code, -32600);
    }
    const hugeId = await post('{"jsonrpc":"2.0","id":' + '9'.repeat(400) + ',"method":"ping"}');
    assert.equal(hugeId.status, 400);
    assert.equal((JSON.parse(hugeId.body) as RpcAnswer).id, null);
  });

  test('an unknown method is method-not-found', async () => {
    const body = JSON.parse((await rpc({ jsonrpc: '2.0', id: 7, method: 'completion/complete' })).body) as RpcAnswer;
    assert.equal(body.error.code, -32601);
    assert.equal(body.id, 7);
  });

  test('a body over the limit is 413', async () => {
    const reply = await rpc({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(70_000) } });
    assert.equal(reply.status, 413);
  });

  test('GET and DELETE are 405 with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const reply = await send(router.url, method, undefined);
      assert.equal(reply.status, 405, method);
      assert.equal(reply.headers.allow, 'POST');
    }
  });

  test('DNS-rebinding protection: a foreign Origin or Host is 403; an allowed Origin passes', async () => {
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    assert.equal((await rpc(ping, { origin: 'https://evil.example' })).status, 403);
    assert.equal((await rpc(ping, { origin: 'null' })).status, 403);
    assert.equal((await rpc(ping, { host: 'evil.example' })).status, 403);
    assert.equal((await rpc(ping, { origin: 'https://app.example' })).status, 200);
    assert.equal((await rpc(ping, { host: 'localhost:1234' })).status, 200);
  });

  test('tools/call with bad params is invalid-params; an unpublished tool is a tool error', async () => {
    const bad = JSON.parse((await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 5 } })).body) as RpcAnswer;
    assert.equal(bad.error.code, -32602);
    const unknown = JSON.parse((await rpc({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'write_file', arguments: {} } })).body) as RpcAnswer;
    assert.equal(unknown.result.isError, true);
  });
});

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { faultHttpBackend, fixtureStats, startFaultHttp, type FaultHttpServer } from './support/fault-backends';
import {
  filesBackend,
  memoryBackend,
  startRouter,
  tempDir,
  testConfig,
  type AnswerOf,
  type BatchAnswer,
  type RunningRouter,
  type SingleAnswer,
} from './support/router';

const sha256 = (key: string) => createHash('sha256').update(key).digest('hex');
const ALICE_KEY = 'alice-key-' + 'a'.repeat(32);
const CAROL_KEY = 'carol-key-' + 'c'.repeat(32);
const CANARY = 'CANARY-7f3a9c1e-secret';

/** Everything the router process writes to stdout and stderr while a test runs. */
function captureOutput(): { text: () => string; stop: () => void } {
  const chunks: string[] = [];
  const original = { out: process.stdout.write.bind(process.stdout), err: process.stderr.write.bind(process.stderr) };
  const tap = (write: typeof process.stdout.write) =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stdout.write;
  process.stdout.write = tap(original.out);
  process.stderr.write = tap(original.err);
  return {
    text: () => chunks.join(''),
    stop: () => {
      process.stdout.write = original.out;
      process.stderr.write = original.err;
    },
  };
}

describe('API keys, per-principal access and audit through /mcp', () => {
  const dir = tempDir();
  const auditFile = join(tempDir(), 'audit.jsonl');
  writeFileSync(join(dir, 'notes.txt'), 'x'.repeat(50_000));
  let router: RunningRouter;
  let output: ReturnType<typeof captureOutput>;
  const clients: Client[] = [];

  const connect = async (key?: string, headers: Record<string, string> = {}) => {
    const client = new Client({ name: 'security-e2e', version: '1' });
    const requestInit = { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } };
    await client.connect(new StreamableHTTPClientTransport(new URL(router.url), { requestInit }));
    clients.push(client);
    return client;
  };
  const call = async <N extends keyof AnswerOf>(client: Client, name: N, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })).structuredContent as AnswerOf[N];
  const post = (headers: Record<string, string>, url = router.url) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });

  before(async () => {
    output = captureOutput();
    router = await startRouter(
      testConfig([filesBackend(dir, { env: {} }), memoryBackend(join(tempDir(), 'm.jsonl'))], {
        auth: {
          mode: 'apiKeys',
          allowInsecure: false,
          apiKeys: [
            { principal: 'alice', sha256: sha256(ALICE_KEY), groups: ['readers'] },
            { principal: 'carol', sha256: sha256(CAROL_KEY), groups: ['memory-only'] },
          ],
        },
        access: {
          rules: [
            { groups: ['readers'], allow: ['files:*'] },
            { groups: ['memory-only'], allow: ['memory:*'] },
          ],
        },
        audit: { sink: 'file', path: auditFile },
        budgets: { responseMaxBytes: 16_384, responseMaxItems: 200, batchResponseMaxBytes: 300_000 },
      }),
    );
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await router.close();
    output.stop();
  });

  test('missing or bad credentials are 401 with WWW-Authenticate; a key in the query string is refused', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Bearer wrong-key' },
      { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
    ]) {
      const res = await post(headers);
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer /);
    }
    const inQuery = await post({ authorization: `Bearer ${ALICE_KEY}` }, `${router.url}?api_key=${ALICE_KEY}`);
    assert.equal(inQuery.status, 400);
    assert.equal((await post({ authorization: `Bearer ${ALICE_KEY}` })).status, 200);
  });

  test('health and metrics stay open', async () => {
    const base = router.url.replace(/\/mcp$/, '');
    assert.equal((await fetch(`${base}/health/live`)).status, 200);
    assert.equal((await fetch(`${base}/metrics`)).status, 200);
  });

  test('find_tool shows only what the caller may call', async () => {
    const alice = await connect(ALICE_KEY);
    const carol = await connect(CAROL_KEY);
    const aliceHits = (await call(alice, 'find_tool', { query: 'read', top_k: 10 })).hits;
    const carolHits = (await call(carol, 'find_tool', { query: 'read', top_k: 10 })).hits;
    assert.ok(aliceHits.length > 0 && aliceHits.every((h) => h.server === 'files'));
    assert.ok(carolHits.length > 0 && carolHits.every((h) => h.server === 'memory'));
  });

  test('a denied tool answers exactly like a tool that does not exist', async () => {
    const carol = await connect(CAROL_KEY);
    const denied = await call(carol, 'invoke_read_tool', { name: 'read_text_file', arguments: { path: join(dir, 'notes.txt') } });
    const missing = await call(carol, 'invoke_read_tool', { name: 'read_text_filf', arguments: { path: join(dir, 'notes.txt') } });
    assert.equal(denied.status, 'unknown_tool');
    assert.deepEqual({ ...denied, tool: 'x' }, { ...missing, tool: 'x' });
    const deniedWithServer = await call(carol, 'invoke_read_tool', { name: 'read_text_file', server: 'files' });
    const missingWithServer = await call(carol, 'invoke_read_tool', { name: 'read_text_filf', server: 'files' });
    assert.deepEqual({ ...deniedWithServer, tool: 'x' }, { ...missingWithServer, tool: 'x' });
  });

  test('a cursor minted for alice is invalid_cursor for carol', async () => {
    const alice = await connect(ALICE_KEY);
    const first = await call(alice, 'invoke_read_tool', { name: 'read_text_file', arguments: { path: join(dir, 'notes.txt') } });
    assert.equal(typeof first.next_cursor, 'string');
    const resumed = await call(alice, 'invoke_read_tool', { name: 'read_text_file', arguments: { path: join(dir, 'notes.txt') }, cursor: first.next_cursor });
    assert.equal(resumed.status, 'ok');
    // Carol may read the same file only if allowed: give her a rule-free look through the same name.
    const carol = await connect(CAROL_KEY);
    const replay = await call(carol, 'invoke_read_tool_batch', { calls: [{ name: 'read_graph', cursor: first.next_cursor }] });
    assert.equal(replay.results[0].status, 'invalid_cursor');
  });

  test('a canary secret in arguments, headers and tokens reaches no log line, metric, error or audit line', async () => {
    const alice = await connect(ALICE_KEY, { 'x-api-secret': CANARY });
    const answers = [
      await call(alice, 'invoke_read_tool', { name: 'read_text_file', arguments: { path: join(dir, CANARY) } }),
      await call(alice, 'invoke_read_tool', { name: 'read_text_file', arguments: { path: CANARY.repeat(2000) } }),
      await call(alice, 'invoke_read_tool_batch', {
        calls: [
          { name: 'read_text_file', arguments: { token: CANARY }, extra: CANARY },
          { id: CANARY.repeat(9), name: 'x' },
        ],
      }),
      await call(alice, 'invoke_read_tool', { name: 'write_file', arguments: { path: join(dir, 'w'), content: CANARY } }),
    ];
    await post({ authorization: `Bearer ${CANARY}` });
    // The router's own errors name rules, never values; the first answer is the backend's own error text.
    for (const answer of answers.slice(1)) assert.ok(!JSON.stringify(answer).includes(CANARY), JSON.stringify(answer).slice(0, 300));
    const metrics = await (await fetch(router.url.replace(/\/mcp$/, '/metrics'))).text();
    assert.ok(!metrics.includes(CANARY));
    assert.ok(!output.text().includes(CANARY), 'no log line holds the canary');
    const audit = readFileSync(auditFile, 'utf8');
    assert.ok(!audit.includes(CANARY));
    const lines = audit
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(lines.some((l) => l.kind === 'auth_failure'));
    const calls = lines.filter((l) => l.kind === 'call');
    assert.ok(calls.length >= 5);
    for (const line of calls) {
      for (const field of ['time', 'principal', 'entrypoint', 'tool', 'status', 'durationMs', 'responseBytes']) assert.ok(field in line, field);
    }
    assert.ok(calls.some((l) => l.principal === 'alice' && l.backend === 'files' && typeof l.argsDigest === 'string'));
  });
});

describe("a caller's credentials never reach an HTTP backend", () => {
  let backend: FaultHttpServer;
  let router: RunningRouter;
  let client: Client | undefined;

  before(async () => {
    backend = await startFaultHttp('remote');
    router = await startRouter(
      testConfig([faultHttpBackend('remote', backend, { headers: { 'x-backend-token': 'configured-value' } })], {
        auth: { mode: 'apiKeys', allowInsecure: false, apiKeys: [{ principal: 'alice', sha256: sha256(ALICE_KEY), groups: ['readers'] }] },
        access: { rules: [{ groups: ['readers'], allow: ['remote:*'] }] },
      }),
    );
  });
  after(async () => {
    await client?.close();
    await router?.close();
    await backend?.stop();
  });

  test('the backend sees its configured headers only: no Authorization, cookie or header of the caller', async () => {
    client = new Client({ name: 'security-e2e', version: '1' });
    const headers = { authorization: `Bearer ${ALICE_KEY}`, 'x-api-secret': CANARY, cookie: `session=${CANARY}`, 'x-forwarded-for': '10.9.8.7' };
    await client.connect(new StreamableHTTPClientTransport(new URL(router.url), { requestInit: { headers } }));
    const single = (await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'fast', server: 'remote' } })).structuredContent as SingleAnswer;
    assert.equal(single.status, 'ok', JSON.stringify(single));
    const batch = (await client.callTool({ name: 'invoke_read_tool_batch', arguments: { calls: [{ name: 'fast' }, { name: 'fast' }] } }))
      .structuredContent as BatchAnswer;
    assert.deepEqual(
      batch.results.map((r) => r.status),
      ['ok', 'ok'],
    );
    const received = (await fixtureStats(backend)).headers;
    assert.ok(received.includes('x-backend-token: configured-value'), received.join('\n'));
    for (const line of received) {
      assert.ok(!line.includes(CANARY) && !line.includes(ALICE_KEY) && !line.includes('10.9.8.7'), line);
      assert.ok(!/^(authorization|cookie|x-api-secret|x-forwarded-for):/.test(line), line);
    }
  });
});

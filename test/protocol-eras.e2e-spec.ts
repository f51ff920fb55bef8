import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import {
  filesBackend,
  readAsModel,
  startRouter,
  tempDir,
  testConfig,
  type FindAnswer,
  type RpcAnswer,
  type RpcResult,
  type RunningRouter,
  type ToolResult,
} from './support/router';

/**
 * The v1 transport, asking `initialize` for a given version: SDK 1.32.2 always asks for its newest
 * (2025-11-25), as a client of an older release asks for 2025-06-18; everything after is the
 * unchanged v1 client, which then sends the negotiated version in its header.
 */
class AskingTransport extends TransportV1 {
  constructor(
    url: URL,
    private readonly asked: string,
  ) {
    super(url);
  }

  override send(message: JSONRPCMessage, options?: Parameters<TransportV1['send']>[1]): Promise<void> {
    if ('method' in message && message.method === 'initialize') message = { ...message, params: { ...message.params, protocolVersion: this.asked } };
    return super.send(message, options);
  }
}

/** A 2026-07-28 result: the fields every result carries there, and those of server/discover. */
interface ModernResult extends RpcResult {
  resultType: string;
  supportedVersions: string[];
  capabilities: Record<string, unknown>;
  _meta: Record<string, { name: string; version: string } | undefined>;
  ttlMs?: number;
  cacheScope?: string;
  hits?: unknown[];
}

/**
 * Every protocol version the router lists, spoken by a real client of its era (docs/protocol-eras.md):
 * the SDK v1 Client for 2025-06-18 and 2025-11-25, the SDK v2 Client negotiating 2026-07-28 through
 * `server/discover`. Each finds a file-reading tool and reads a file through the router.
 */
describe('protocol eras: a real client of each listed version', () => {
  let router: RunningRouter;
  const dir = tempDir();
  writeFileSync(join(dir, 'notes.txt'), 'eras meet at the gateway');

  before(async () => {
    router = await startRouter(testConfig([filesBackend(dir)]));
  });
  after(async () => router.close());

  /** find_tool then invoke_read_tool through any client that can call tools. */
  async function findAndRead(callTool: (name: string, args: Record<string, unknown>) => Promise<ToolResult>): Promise<void> {
    const found = readAsModel<FindAnswer>(await callTool('find_tool', { query: 'read a text file' }));
    const hit = found.head.hits.find((h) => h.name === 'read_text_file');
    assert.ok(hit, JSON.stringify(found.head).slice(0, 300));
    const read = await callTool('invoke_read_tool', { name: hit.name, server: hit.server, arguments: { path: join(dir, 'notes.txt') } });
    assert.notEqual(read.isError, true);
    const texts = (read.content ?? []).filter((b) => b.type === 'text').map((b) => b.text ?? '');
    assert.ok(
      texts.some((t) => t.includes('eras meet at the gateway')),
      texts.join('\n').slice(0, 300),
    );
  }

  for (const version of ['2025-06-18', '2025-11-25']) {
    test(`${version}: the SDK v1 Client initializes at ${version}, lists and calls the tools`, async () => {
      const transport = new AskingTransport(new URL(router.url), version);
      const client = new ClientV1({ name: `era-${version}`, version: '1.0.0' });
      await client.connect(transport);
      try {
        assert.equal(transport.protocolVersion, version);
        assert.deepEqual(
          (await client.listTools()).tools.map((t) => t.name),
          ['find_tool', 'invoke_read_tool', 'invoke_read_tool_batch'],
        );
        await findAndRead(async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult);
      } finally {
        await client.close();
      }
    });
  }

  test('2026-07-28: the SDK v2 Client negotiates the modern era through server/discover, lists and calls the tools', async () => {
    // What went over the wire: each POST's method and era headers, to see the client never fell back.
    const sent: { method: string; headers: Record<string, string | null> }[] = [];
    const recording = async (url: string | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : {};
      sent.push({
        method: body.method ?? '',
        headers: { version: headers.get('mcp-protocol-version'), method: headers.get('mcp-method'), name: headers.get('mcp-name') },
      });
      return fetch(url, init);
    };
    const client = new ClientV2({ name: 'era-2026', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new TransportV2(new URL(router.url), { fetch: recording }));
    try {
      assert.equal(client.getProtocolEra(), 'modern');
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      const discovered = client.getDiscoverResult();
      assert.deepEqual(discovered?.supportedVersions, ['2026-07-28', '2025-11-25', '2025-06-18']);
      assert.equal(client.getServerVersion()?.name, 'centralmcp-router');
      const listed = await client.listTools();
      assert.deepEqual(
        listed.tools.map((t) => t.name),
        ['find_tool', 'invoke_read_tool', 'invoke_read_tool_batch'],
      );
      await findAndRead(async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult);
      assert.deepEqual(
        sent.map((s) => s.method),
        ['server/discover', 'tools/list', 'tools/call', 'tools/call'],
      );
      for (const { method, headers } of sent) {
        assert.deepEqual(headers, { version: '2026-07-28', method, name: method === 'tools/call' ? headers.name : null });
      }
      assert.deepEqual(
        sent.filter((s) => s.method === 'tools/call').map((s) => s.headers.name),
        ['find_tool', 'invoke_read_tool'],
      );
    } finally {
      await client.close();
    }
  });
});

/** The 2026-07-28 wire rules over raw HTTP: what a client or an intermediary sees byte for byte. */
describe('protocol eras: the 2026-07-28 wire rules', () => {
  let router: RunningRouter;
  before(async () => {
    router = await startRouter(testConfig([filesBackend(tempDir())]));
  });
  after(async () => router.close());

  const ENVELOPE = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  async function post(body: unknown, headers: Record<string, string>): Promise<{ status: number; text: string; body: RpcAnswer<ModernResult> }> {
    const response = await fetch(router.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as RpcAnswer<ModernResult> };
  }
  /** A well-formed 2026-07-28 request, its headers mirrored from the body unless overridden. */
  const modern = (id: number, method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
    post(
      { jsonrpc: '2.0', id, method, params: { ...params, _meta: ENVELOPE } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}), ...headers },
    );

  test('server/discover answers the supported versions, capabilities, identity, instructions and caching hints', async () => {
    const { status, body } = await modern(1, 'server/discover');
    assert.equal(status, 200);
    assert.equal(body.id, 1);
    const { result } = body;
    assert.equal(result.resultType, 'complete');
    assert.deepEqual(result.supportedVersions, ['2026-07-28', '2025-11-25', '2025-06-18']);
    assert.deepEqual(result.capabilities, { tools: { listChanged: false } });
    assert.deepEqual(result._meta['io.modelcontextprotocol/serverInfo'], { name: 'centralmcp-router', version: '0.1.0' });
    assert.match(result.instructions ?? '', /find_tool/);
    assert.equal(result.ttlMs, 3_600_000);
    assert.equal(result.cacheScope, 'public');
  });

  test('tools/list carries ttlMs and cacheScope, in the same order, byte for byte, on every request', async () => {
    const first = await modern(2, 'tools/list');
    const second = await modern(2, 'tools/list');
    assert.equal(first.status, 200);
    assert.equal(first.body.result.resultType, 'complete');
    assert.equal(first.body.result.ttlMs, 3_600_000);
    assert.equal(first.body.result.cacheScope, 'public');
    assert.deepEqual(
      first.body.result.tools.map((t) => t.name),
      ['find_tool', 'invoke_read_tool', 'invoke_read_tool_batch'],
    );
    assert.equal(second.text, first.text);
  });

  test('tools/call answers resultType complete and the server in _meta, the tool result unchanged', async () => {
    const { status, body } = await modern(3, 'tools/call', { name: 'find_tool', arguments: { query: 'read a file' } });
    assert.equal(status, 200);
    assert.equal(body.result.resultType, 'complete');
    assert.equal(body.result._meta['io.modelcontextprotocol/serverInfo']?.name, 'centralmcp-router');
    assert.equal(body.result.isError, false);
    assert.ok(Array.isArray(body.result.hits ?? body.result.structuredContent?.hits));
  });

  test('an Mcp-Method or Mcp-Name that differs from the body is HTTP 400 HeaderMismatch, and nothing runs', async () => {
    const wrongMethod = await modern(4, 'tools/call', { name: 'find_tool', arguments: { query: 'x' } }, { 'mcp-method': 'tools/list' });
    assert.equal(wrongMethod.status, 400);
    assert.deepEqual(wrongMethod.body, {
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32020, message: 'Header mismatch: Mcp-Method header value "tools/list" does not match body value "tools/call"' },
    });
    const wrongName = await modern(5, 'tools/call', { name: 'invoke_read_tool', arguments: {} }, { 'mcp-name': 'find_tool' });
    assert.equal(wrongName.status, 400);
    assert.equal(wrongName.body.error.code, -32020);
    assert.match(wrongName.body.error.message, /Mcp-Name header value "find_tool" does not match body value "invoke_read_tool"/);
    const missing = await post({ jsonrpc: '2.0', id: 6, method: 'tools/list', params: { _meta: ENVELOPE } }, { 'mcp-protocol-version': '2026-07-28' });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.code, -32020);
    assert.match(missing.body.error.message, /Mcp-Method header is missing/);
    // A 2025 client's request with a mismatching Mcp-Method is refused as well: an intermediary may have routed on it.
    const legacy = await post({ jsonrpc: '2.0', id: 7, method: 'tools/list' }, { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/call' });
    assert.equal(legacy.status, 400);
    assert.equal(legacy.body.error.code, -32020);
  });

  test('an unsupported version is HTTP 400 UnsupportedProtocolVersion listing the supported versions', async () => {
    const inMeta = await post(
      { jsonrpc: '2.0', id: 8, method: 'tools/list', params: { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '1900-01-01' } } },
      { 'mcp-protocol-version': '1900-01-01', 'mcp-method': 'tools/list' },
    );
    assert.equal(inMeta.status, 400);
    assert.equal(inMeta.body.id, 8);
    assert.equal(inMeta.body.error.code, -32022);
    assert.deepEqual(inMeta.body.error.data, { supported: ['2026-07-28', '2025-11-25', '2025-06-18'], requested: '1900-01-01' });
    const inHeader = await post({ jsonrpc: '2.0', id: 9, method: 'tools/list' }, { 'mcp-protocol-version': '2025-03-26' });
    assert.equal(inHeader.status, 400);
    assert.equal(inHeader.body.error.code, -32022);
    assert.equal((inHeader.body.error.data as { requested: string }).requested, '2025-03-26');
  });

  test('a 2026-07-28 request without its _meta envelope is HTTP 400 Invalid params', async () => {
    const bare = await post({ jsonrpc: '2.0', id: 10, method: 'tools/list' }, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' });
    assert.equal(bare.status, 400);
    assert.equal(bare.body.error.code, -32602);
    const noCapabilities = await post(
      { jsonrpc: '2.0', id: 11, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    );
    assert.equal(noCapabilities.status, 400);
    assert.match(noCapabilities.body.error.message, /clientCapabilities/);
  });

  test('methods the router does not serve in 2026-07-28 are HTTP 404 Method not found', async () => {
    for (const method of ['subscriptions/listen', 'ping', 'initialize', 'resources/subscribe']) {
      const reply = await modern(12, method, method === 'subscriptions/listen' ? { notifications: { toolsListChanged: true } } : {});
      assert.equal(reply.status, 404, method);
      assert.equal(reply.body.error.code, -32601, method);
    }
  });

  test('initialize asking for 2026-07-28 is answered with the newest legacy version', async () => {
    const reply = await post(
      { jsonrpc: '2.0', id: 13, method: 'initialize', params: { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
      {},
    );
    assert.equal(reply.status, 200);
    assert.equal(reply.body.result.protocolVersion, '2025-11-25');
  });
});

/** Admission and access are the same whatever the era: a 2026-07-28 request is judged on its own credential. */
describe('protocol eras: a 2026-07-28 client behind API keys', () => {
  const KEY = 'era-key-' + 'k'.repeat(32);
  const dir = tempDir();
  writeFileSync(join(dir, 'notes.txt'), 'keyed modern read');
  let router: RunningRouter;
  before(async () => {
    router = await startRouter(
      testConfig([filesBackend(dir)], {
        auth: {
          mode: 'apiKeys',
          allowInsecure: false,
          apiKeys: [{ principal: 'alice', sha256: createHash('sha256').update(KEY).digest('hex'), groups: ['readers'] }],
        },
        access: { rules: [{ groups: ['readers'], allow: ['files:*'] }] },
      }),
    );
  });
  after(async () => router.close());

  test('with the key the v2 client negotiates 2026-07-28 and reads; without it connect is refused 401', async () => {
    const client = new ClientV2({ name: 'era-2026-keyed', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new TransportV2(new URL(router.url), { requestInit: { headers: { authorization: `Bearer ${KEY}` } } }));
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      const read = (await client.callTool({
        name: 'invoke_read_tool',
        arguments: { name: 'read_text_file', server: 'files', arguments: { path: join(dir, 'notes.txt') } },
      })) as ToolResult;
      assert.ok(
        (read.content ?? []).some((b) => b.type === 'text' && (b.text ?? '').includes('keyed modern read')),
        JSON.stringify(read).slice(0, 300),
      );
    } finally {
      await client.close();
    }
    const anonymous = new ClientV2({ name: 'era-2026-anonymous', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await assert.rejects(anonymous.connect(new TransportV2(new URL(router.url))), /401|authoriz/i);
    await anonymous.close().catch(() => undefined);
  });
});

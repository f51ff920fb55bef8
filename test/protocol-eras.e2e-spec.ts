import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { filesBackend, readAsModel, startRouter, tempDir, testConfig, type RunningRouter, type ToolResult } from './support/router';

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
    const found = readAsModel(await callTool('find_tool', { query: 'read a text file' }));
    const hit = (found.head.hits as { name: string; server: string }[]).find((h) => h.name === 'read_text_file');
    assert.ok(hit, JSON.stringify(found.head).slice(0, 300));
    const read = await callTool('invoke_read_tool', { name: hit.name, server: hit.server, arguments: { path: join(dir, 'notes.txt') } });
    assert.notEqual(read.isError, true);
    const texts = (read.content ?? []).filter((b) => b.type === 'text').map((b) => b.text ?? '');
    assert.ok(texts.some((t) => t.includes('eras meet at the gateway')), texts.join('\n').slice(0, 300));
  }

  for (const version of ['2025-06-18', '2025-11-25']) {
    test(`${version}: the SDK v1 Client initializes at ${version}, lists and calls the tools`, async () => {
      const transport = new AskingTransport(new URL(router.url), version);
      const client = new ClientV1({ name: `era-${version}`, version: '1.0.0' });
      await client.connect(transport);
      try {
        assert.equal(transport.protocolVersion, version);
        assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['find_tool', 'invoke_read_tool', 'invoke_read_tool_batch']);
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
      sent.push({ method: body.method ?? '', headers: { version: headers.get('mcp-protocol-version'), method: headers.get('mcp-method'), name: headers.get('mcp-name') } });
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
      assert.deepEqual(listed.tools.map((t) => t.name), ['find_tool', 'invoke_read_tool', 'invoke_read_tool_batch']);
      await findAndRead(async (name, args) => (await client.callTool({ name, arguments: args })) as ToolResult);
      assert.deepEqual(sent.map((s) => s.method), ['server/discover', 'tools/list', 'tools/call', 'tools/call']);
      for (const { method, headers } of sent) {
        assert.deepEqual(headers, { version: '2026-07-28', method, name: method === 'tools/call' ? headers.name : null });
      }
      assert.deepEqual(sent.filter((s) => s.method === 'tools/call').map((s) => s.headers.name), ['find_tool', 'invoke_read_tool']);
    } finally {
      await client.close();
    }
  });
});

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RouterConfig } from '../src/config/config.types';
import {
  filesBackend,
  rawToolCall,
  readAsModel,
  startRouter,
  tempDir,
  testConfig,
  type RunningRouter,
  type SingleAnswer,
  type ToolResult,
} from './support/router';

type Head = SingleAnswer & { resume?: string };
type ListedTool = Awaited<ReturnType<Client['listTools']>>['tools'][number];

const sha256 = (key: string) => createHash('sha256').update(key).digest('hex');
const ALL_KEY = 'all-key-' + 'a'.repeat(32);
const FEW_KEY = 'few-key-' + 'f'.repeat(32);

async function connect(router: RunningRouter, clients: Client[], key?: string): Promise<Client> {
  const client = new Client({ name: 'publish-e2e', version: '1' });
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  const requestInit = { headers };
  await client.connect(new StreamableHTTPClientTransport(new URL(router.url), { requestInit }));
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ result: ToolResult; head: Head }> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  return { result, head: readAsModel<Head>(result).head };
}

const named = (tools: ListedTool[], name: string): ListedTool => {
  const tool = tools.find((t) => t.name === name);
  assert.ok(tool, `${name} is listed`);
  return tool;
};

function routerConfig(dir: string, overrides: Partial<RouterConfig>): RouterConfig {
  return testConfig([filesBackend(dir)], {
    budgets: { responseMaxBytes: 8_192, responseMaxItems: 200, batchResponseMaxBytes: 300_000 },
    ...overrides,
  });
}

describe('publish.mode both, writes off', () => {
  const dir = tempDir();
  const original = Array.from({ length: 2_000 }, (_, i) => `line ${i}: ${'é✓'.repeat(i % 7)} the quick brown fox`).join('\n');
  let router: RunningRouter;
  const clients: Client[] = [];
  before(async () => {
    writeFileSync(join(dir, 'big.txt'), original);
    writeFileSync(join(dir, 'small.txt'), 'hello from a small file');
    router = await startRouter(routerConfig(dir, { publish: { mode: 'both', maxDirectTools: 128 } }));
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await router.close();
  });

  test('lists the meta-tools, then files__read_text_file read-only with its cleaned definition, and no write tool', async () => {
    const client = await connect(router, clients);
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.slice(0, 3).map((t) => t.name),
      ['find_tool', 'invoke_read_tool', 'invoke_read_tool_batch'],
    );
    const read = named(tools, 'files__read_text_file');
    assert.equal(read.annotations?.readOnlyHint, true);
    assert.equal(read.annotations?.destructiveHint, false);
    assert.ok(read.description && read.description.length <= 300 && !/\n/.test(read.description));
    assert.ok(read.inputSchema.properties && 'path' in read.inputSchema.properties);
    assert.equal(read.outputSchema, undefined);
    const names = tools.map((t) => t.name);
    assert.equal(names.includes('files__write_file'), false);
    assert.equal(names.includes('invoke_tool'), false);
    assert.ok(names.every((n) => n.length <= 64 && /^[A-Za-z0-9_-]+$/.test(n)));
    assert.match(client.getInstructions() ?? '', /<server>__<tool>/);
  });

  test('files__read_text_file answers as invoke_read_tool does', async () => {
    const client = await connect(router, clients);
    const { result, head } = await call(client, 'files__read_text_file', { path: join(dir, 'small.txt') });
    assert.equal(result.isError, false);
    assert.deepEqual(head, { ok: true, tool: 'read_text_file', server: 'files', status: 'ok' });
    assert.equal(readAsModel(result).blocks[0].text, 'hello from a small file');
  });

  test('a large answer is cut within the budget; its resume says how, and invoke_read_tool with the cursor gets the rest', async () => {
    const client = await connect(router, clients);
    const path = join(dir, 'big.txt');
    const first = await rawToolCall(router, 'files__read_text_file', { path });
    assert.ok(first.bytes <= 8_192, `${first.bytes} bytes`);
    const { head, blocks } = readAsModel<Head>(first.result);
    assert.equal(head.truncated, true);
    assert.equal(typeof head.next_cursor, 'string');
    assert.match(head.resume ?? '', /invoke_read_tool with name "read_text_file", server "files", the same arguments .*cursor/);
    assert.equal(first.result.structuredContent?.resume, head.resume);
    let text = blocks[0].text ?? '';
    let cursor = head.next_cursor;
    let pages = 1;
    while (cursor !== undefined) {
      const next = await call(client, 'invoke_read_tool', { name: 'read_text_file', server: 'files', arguments: { path }, cursor });
      assert.equal(next.head.status, 'ok');
      // Through invoke_read_tool the caller can pass the cursor itself: no resume hint.
      assert.equal(next.head.resume, undefined);
      text += readAsModel(next.result).blocks[0].text;
      cursor = next.head.next_cursor;
      assert.ok(++pages < 100, 'pages terminate');
    }
    assert.ok(pages > 3, `${pages} pages`);
    assert.equal(text, original);
  });

  test('files__write_file and invoke_tool answer as unknown tools; nothing is written', async () => {
    const client = await connect(router, clients);
    const target = join(dir, 'never.txt');
    for (const [name, args] of [
      ['files__write_file', { path: target, content: 'x' }],
      ['invoke_tool', { name: 'write_file', server: 'files', arguments: { path: target, content: 'x' } }],
      ['files__no_such_tool', {}],
    ] as const) {
      const { result, head } = await call(client, name, args);
      assert.equal(result.isError, true, name);
      assert.equal(head.status, 'unknown_tool', name);
    }
    assert.equal(existsSync(target), false);
  });
});

describe('publish.mode direct with writes on', () => {
  const dir = tempDir();
  let router: RunningRouter;
  const clients: Client[] = [];
  before(async () => {
    router = await startRouter(
      routerConfig(dir, {
        publish: { mode: 'direct', maxDirectTools: 128 },
        writes: { enabled: true, allow: ['files:write_file', 'files:create_directory'], deny: [] },
      }),
    );
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await router.close();
  });

  test('lists invoke_read_tool and the backend tools; a write carries its own annotations and `confirm`', async () => {
    const client = await connect(router, clients);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.equal(names[0], 'invoke_read_tool');
    for (const meta of ['find_tool', 'invoke_read_tool_batch', 'invoke_tool']) assert.equal(names.includes(meta), false, meta);
    assert.ok(names.includes('files__read_text_file'));
    // Not in writes.allow: neither read-only nor writable, so not published.
    assert.equal(names.includes('files__move_file'), false);
    const write = named(tools, 'files__write_file');
    assert.equal(write.annotations?.readOnlyHint, false);
    assert.ok(write.inputSchema.properties && 'confirm' in write.inputSchema.properties);
    assert.deepEqual(write.inputSchema.required?.includes('confirm'), false);
    assert.match(client.getInstructions() ?? '', /confirmation_required/);
  });

  test('a write asks for confirmation, then runs with `confirm`, once', async () => {
    const client = await connect(router, clients);
    const target = join(dir, 'written.txt');
    const args = { path: target, content: 'written through a tool published directly' };
    const asked = await call(client, 'files__write_file', args);
    assert.equal(asked.result.isError, false);
    assert.equal(asked.head.status, 'confirmation_required');
    assert.match(asked.head.message ?? '', /call files__write_file again with the same arguments plus `confirm`/);
    assert.equal(existsSync(target), false);
    const done = await call(client, 'files__write_file', { ...args, confirm: asked.head.confirmation });
    assert.equal(done.head.status, 'ok');
    assert.equal(readFileSync(target, 'utf8'), args.content);
    const replay = await call(client, 'files__write_file', { ...args, confirm: asked.head.confirmation });
    assert.equal(replay.head.status, 'blocked');
  });

  test('find_tool and the batch are not published in direct mode', async () => {
    const client = await connect(router, clients);
    for (const name of ['find_tool', 'invoke_read_tool_batch']) {
      const { head } = await call(client, name, { query: 'x' });
      assert.equal(head.status, 'unknown_tool', name);
    }
  });
});

describe('per caller, and past publish.maxDirectTools', () => {
  const dir = tempDir();
  let router: RunningRouter;
  const clients: Client[] = [];
  before(async () => {
    writeFileSync(join(dir, 'small.txt'), 'hello');
    router = await startRouter(
      routerConfig(dir, {
        publish: { mode: 'direct', maxDirectTools: 3 },
        auth: {
          mode: 'apiKeys',
          allowInsecure: false,
          apiKeys: [
            { principal: 'ann', sha256: sha256(ALL_KEY), groups: ['all'] },
            { principal: 'fay', sha256: sha256(FEW_KEY), groups: ['few'] },
          ],
        },
        access: {
          rules: [
            { groups: ['all'], allow: ['*'] },
            { groups: ['few'], allow: ['files:read_text_file', 'files:list_allowed_directories'] },
          ],
        },
      }),
    );
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await router.close();
  });

  test('each caller lists only its tools; a tool of another is unknown to it', async () => {
    const few = await connect(router, clients, FEW_KEY);
    const { tools } = await few.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ['invoke_read_tool', 'files__list_allowed_directories', 'files__read_text_file'],
    );
    assert.doesNotMatch(few.getInstructions() ?? '', /Only 3/);
    const { head } = await call(few, 'files__list_directory', { path: dir });
    assert.equal(head.status, 'unknown_tool');
    assert.equal((await call(few, 'files__read_text_file', { path: join(dir, 'small.txt') })).head.status, 'ok');
  });

  test('a 2026-07-28 client lists its own tools, which only it may cache, for a minute', async () => {
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const response = await fetch(router.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${FEW_KEY}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } }),
    });
    assert.equal(response.status, 200);
    const { result } = (await response.json()) as { result: { tools: { name: string }[]; ttlMs: number; cacheScope: string } };
    assert.deepEqual(
      result.tools.map((t) => t.name),
      ['invoke_read_tool', 'files__list_allowed_directories', 'files__read_text_file'],
    );
    assert.equal(result.ttlMs, 60_000);
    assert.equal(result.cacheScope, 'private');
  });

  test('past the limit the first tools by name are published, the meta-tools come back, and the instructions name the rest', async () => {
    const all = await connect(router, clients, ALL_KEY);
    const { tools } = await all.listTools();
    const direct = tools.filter((t) => t.name.includes('__')).map((t) => t.name);
    assert.equal(direct.length, 3);
    assert.deepEqual(direct, [...direct].sort());
    assert.deepEqual(
      tools.slice(0, 3).map((t) => t.name),
      ['find_tool', 'invoke_read_tool', 'invoke_read_tool_batch'],
    );
    const instructions = all.getInstructions() ?? '';
    assert.match(instructions, /Only 3 backend tools are published/);
    assert.match(instructions, /files:read_text_file/);
    // A tool past the limit is reached through find_tool and invoke_read_tool.
    const found = await all.callTool({ name: 'find_tool', arguments: { query: 'read a text file', server: 'files' } });
    assert.equal(found.isError, false);
    const read = await call(all, 'invoke_read_tool', { name: 'read_text_file', server: 'files', arguments: { path: join(dir, 'small.txt') } });
    assert.equal(read.head.status, 'ok');
  });
});

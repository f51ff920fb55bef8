import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { BackendsService } from '../src/backends/backends.service';
import { until } from './support/backend-processes';
import { freePort, startEverythingHttp, stopProcess } from './support/backend-servers';
import {
  callTool,
  everythingBackend,
  filesBackend,
  memoryBackend,
  rawToolCall,
  readAsModel,
  startRouter,
  tempDir,
  testConfig,
  type RunningRouter,
} from './support/router';

describe('the router over the three real demo backends', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'hello.txt'), 'hello from the files backend\n');
  const quoted = 'a "quoted" line\n\ttabbed \\ backslash, café ✓\n';
  writeFileSync(join(dir, 'quoted.txt'), quoted);
  let router: RunningRouter;
  let client: Client;

  before(async () => {
    router = await startRouter(
      testConfig([filesBackend(dir), memoryBackend(join(tempDir(), 'memory.jsonl')), everythingBackend()], {
        policy: { readOnly: { allow: [], deny: ['files:list_allowed_directories'] } },
      }),
    );
    client = await router.connect();
  });
  after(async () => router.close());

  test('lists exactly the published meta-tools, annotated read-only', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['find_tool', 'invoke_read_tool', 'invoke_read_tool_batch']);
    for (const tool of tools) assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
  });

  test('find_tool finds tools on each of the three backends with the gate decision', async () => {
    const expectations: [string, string, string, boolean][] = [
      ['read the contents of a text file', 'files', 'read_text_file', true],
      ['add two numbers', 'everything', 'get-sum', true],
      ['search the knowledge graph for nodes', 'memory', 'search_nodes', true],
    ];
    for (const [query, server, name, readOnly] of expectations) {
      const { isError, data } = await callTool(client, 'find_tool', { query, top_k: 5 });
      assert.equal(isError, false);
      const hit = data.hits.find((h) => h.name === name && h.server === server);
      assert.ok(hit, `${query} → ${server}:${name} in ${JSON.stringify(data.hits.map((h) => h.name))}`);
      assert.equal(hit.read_only, readOnly);
      assert.ok(Array.isArray(hit.params) && typeof hit.score === 'number' && hit.schema === undefined);
    }
    // Writes are off: the write tools are not offered, and the answer says why.
    const { data } = await callTool(client, 'find_tool', { query: 'write a file', top_k: 5 });
    assert.ok(!data.hits.some((h) => h.name === 'write_file'), JSON.stringify(data.hits.map((h) => h.name)));
    assert.match(data.writes_note ?? '', /writes are off/);
  });

  test('find_tool honours server, top_k and include_schema, and refuses a bad top_k', async () => {
    const { data } = await callTool(client, 'find_tool', { query: 'file', top_k: 2, server: 'files', include_schema: true });
    assert.equal(data.hits.length, 2);
    for (const hit of data.hits) {
      assert.equal(hit.server, 'files');
      assert.equal(typeof hit.schema, 'object');
    }
    const bad = await callTool(client, 'find_tool', { query: 'file', top_k: 11 });
    assert.equal(bad.isError, true);
    assert.match(bad.data.error!.message, /top_k/);
  });

  test('reads a file through a stdio backend', async () => {
    const { isError, data } = await callTool(client, 'invoke_read_tool', {
      name: 'read_text_file',
      server: 'files',
      arguments: { path: join(dir, 'hello.txt') },
    });
    assert.equal(isError, false, JSON.stringify(data));
    assert.equal(data.ok, true);
    assert.equal(data.status, 'ok');
    assert.equal(data.tool, 'read_text_file');
    assert.equal(data.server, 'files');
    assert.equal(JSON.stringify(data.result).includes('hello from the files backend'), true);
    assert.equal(data.error, undefined);
  });

  test("a model reads the envelope first, then the file's text verbatim", async () => {
    const args = { name: 'read_text_file', server: 'files', arguments: { path: join(dir, 'quoted.txt') } };
    const result = await client.callTool({ name: 'invoke_read_tool', arguments: args });
    assert.equal(result.isError, false);
    const { head, blocks } = readAsModel(result as never);
    assert.deepEqual(head, { ok: true, tool: 'read_text_file', server: 'files', status: 'ok' });
    assert.deepEqual(blocks, [{ type: 'text', text: quoted }]);
    // Programs still read the envelope, unchanged, in structuredContent.
    assert.deepEqual(result.structuredContent, { ...head, result: { content: [], structuredContent: { content: quoted } } });
  });

  test('an image arrives as an image block a client can render; resource links become text', async () => {
    const image = await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'get-tiny-image', server: 'everything' } });
    const { head, blocks } = readAsModel(image as never);
    assert.equal(head.status, 'ok');
    const png = blocks.filter((b) => b.type === 'image');
    assert.equal(png.length, 1);
    assert.equal(png[0].mimeType, 'image/png');
    assert.ok(
      Buffer.from(png[0].data as string, 'base64')
        .subarray(1, 4)
        .toString() === 'PNG',
      'the data is the PNG itself',
    );
    assert.ok(
      blocks.some((b) => b.type === 'text'),
      'the text around it is kept',
    );

    const links = await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'get-resource-links', server: 'everything', arguments: { count: 2 } } });
    const read = readAsModel(links as never);
    assert.deepEqual(
      read.blocks.map((b) => b.type),
      ['text', 'text', 'text'],
    );
    assert.equal(read.blocks[0].text, 'Here are 2 resource links to resources available in this server:');
    for (const block of read.blocks.slice(1)) {
      assert.match(block.text as string, /^\[resource link from server "everything": demo:\/\/\S+ \(name "(Text|Blob) Resource \d"/);
      assert.match(block.text as string, /this router does not serve resources: read it with a tool of that server\]$/);
    }
    const original = (links.structuredContent as { result: { content: { type: string }[] } }).result.content;
    assert.deepEqual(
      original.map((b) => b.type),
      ['text', 'resource_link', 'resource_link'],
      'structuredContent keeps what the backend sent',
    );
  });

  test('a write tool is blocked and the file is not written', async () => {
    const target = join(dir, 'written.txt');
    const { isError, data } = await callTool(client, 'invoke_read_tool', {
      name: 'write_file',
      arguments: { path: target, content: 'must not land' },
    });
    assert.equal(isError, true);
    assert.equal(data.status, 'blocked');
    assert.equal(data.ok, false);
    assert.equal(data.result, undefined);
    assert.deepEqual(data.error, { code: 'blocked', message: 'this tool is not read-only (its backend does not annotate it readOnlyHint: true)' });
    assert.equal(existsSync(target), false);
  });

  test('an operator deny beats a read-only annotation', async () => {
    const { data } = await callTool(client, 'invoke_read_tool', { name: 'list_allowed_directories', server: 'files' });
    assert.equal(data.status, 'blocked');
    assert.equal(data.error!.code, 'blocked');
    assert.match(data.error!.message, /operator/);
  });

  test('an unknown tool and name variants do not resolve', async () => {
    for (const name of ['no_such_tool', 'READ_TEXT_FILE', ' read_text_file', 'read_text_file ', 'files.read_text_file', 'files:read_text_file']) {
      const { isError, data } = await callTool(client, 'invoke_read_tool', { name, arguments: { path: join(dir, 'hello.txt') } });
      assert.equal(isError, true, name);
      assert.equal(data.status, 'unknown_tool', name);
    }
    const wrongServer = await callTool(client, 'invoke_read_tool', { name: 'read_text_file', server: 'memory' });
    assert.equal(wrongServer.data.status, 'unknown_tool');
  });

  test('a malformed call is invalid_call and echoes no argument value', async () => {
    const secret = 'sk-canary-' + 'q'.repeat(20_100);
    const { isError, data } = await callTool(client, 'invoke_read_tool', { name: 'read_text_file', arguments: { path: secret } });
    assert.equal(isError, true);
    assert.equal(data.status, 'invalid_call');
    assert.equal(data.error!.code, 'invalid_call');
    assert.ok(!JSON.stringify(data).includes('sk-canary-'));
  });

  test('a tool the router does not publish answers a tool error in the refusal shape', async () => {
    const result = await client.callTool({ name: 'read_text_file', arguments: {} });
    assert.equal(result.isError, true);
    const refusal = {
      ok: false,
      status: 'unknown_tool',
      error: { code: 'unknown_tool', message: 'This router publishes find_tool, invoke_read_tool, invoke_read_tool_batch only' },
    };
    assert.deepEqual(result.structuredContent, refusal);
    assert.deepEqual(readAsModel(result as never), { head: refusal, blocks: [] });
  });
});

describe('name resolution across backends that share tool names', () => {
  const a = tempDir();
  const b = tempDir();
  writeFileSync(join(a, 'x.txt'), 'from a');
  writeFileSync(join(b, 'x.txt'), 'from b');
  let router: RunningRouter;
  let client: Client;

  before(async () => {
    router = await startRouter(testConfig([filesBackend(a, { name: 'files' }), filesBackend(b, { name: 'archive' })]));
    client = await router.connect();
  });
  after(async () => router.close());

  test('an ambiguous name without server lists the candidates; with server it resolves', async () => {
    const ambiguous = await callTool(client, 'invoke_read_tool', { name: 'read_text_file', arguments: { path: join(b, 'x.txt') } });
    assert.equal(ambiguous.data.status, 'unknown_tool');
    assert.equal(ambiguous.data.error!.code, 'unknown_tool');
    assert.match(ambiguous.data.error!.message, /archive, files/);
    const picked = await callTool(client, 'invoke_read_tool', { name: 'read_text_file', server: 'archive', arguments: { path: join(b, 'x.txt') } });
    assert.equal(picked.data.status, 'ok');
    assert.ok(JSON.stringify(picked.data.result).includes('from b'));
  });
});

describe('bounded reads resumed with cursors', () => {
  const dir = tempDir();
  // 300 KB of varied text, with characters that JSON escapes and some outside ASCII.
  const lines: string[] = [];
  for (let i = 0; lines.join('\n').length < 300_000; i++) lines.push(`line ${i}: "quoted" \\ tab\t café ✓ ${'x'.repeat(i % 70)}`);
  const original = lines.join('\n');
  writeFileSync(join(dir, 'big.txt'), original);
  let router: RunningRouter;
  let client: Client;

  before(async () => {
    router = await startRouter(
      testConfig([filesBackend(dir)], { budgets: { responseMaxBytes: 16_384, responseMaxItems: 200, batchResponseMaxBytes: 300_000 } }),
    );
    client = await router.connect();
  });
  after(async () => router.close());

  const read = (cursor?: string, path = join(dir, 'big.txt')) =>
    callTool(client, 'invoke_read_tool', { name: 'read_text_file', server: 'files', arguments: { path }, ...(cursor ? { cursor } : {}) });

  test('a 300 KB file read with a 16 KB budget is reassembled exactly by a model following cursors', async () => {
    let text = '';
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { result, bytes } = await rawToolCall(router, 'invoke_read_tool', {
        name: 'read_text_file',
        server: 'files',
        arguments: { path: join(dir, 'big.txt') },
        ...(cursor ? { cursor } : {}),
      });
      // The budget holds on all that is sent: structured content and the content blocks together.
      assert.ok(bytes <= 16_384, `page ${pages} is ${bytes} bytes`);
      const { head, blocks } = readAsModel(result);
      assert.equal(head.status, 'ok');
      assert.equal(head.result, undefined);
      // The text comes verbatim, one text block a page; the cursor is in the first block.
      assert.deepEqual(
        blocks.map((b) => b.type),
        ['text'],
      );
      text += blocks[0].text;
      assert.equal(head.next_cursor, (result.structuredContent as Record<string, unknown>).next_cursor);
      cursor = head.next_cursor;
      if (cursor) {
        assert.equal(head.truncated, true);
        assert.equal(head.bounds?.resumable, true);
        assert.equal(typeof head.cursor_expires_in_seconds, 'number');
      }
      pages++;
      assert.ok(pages < 200, 'pages terminate');
    } while (cursor);
    assert.ok(pages >= 19, `${pages} pages`);
    assert.equal(text, original);
  });

  test('tampered, garbage and mismatched cursors are invalid_cursor', async () => {
    const first = await read();
    const cursor = first.data.next_cursor ?? '';
    assert.ok(cursor);
    const flipped = cursor.slice(0, 10) + (cursor[10] === 'A' ? 'B' : 'A') + cursor.slice(11);
    for (const bad of [flipped, 'garbage', cursor + 'x', '.' + cursor]) {
      const { data } = await read(bad);
      assert.equal(data.status, 'invalid_cursor', bad.slice(0, 20));
    }
    writeFileSync(join(dir, 'other.txt'), 'other');
    const mismatched = await read(cursor, join(dir, 'other.txt'));
    assert.equal(mismatched.data.status, 'invalid_cursor');
    assert.match(mismatched.data.error!.message, /another tool or other arguments/);
  });
});

describe('a Streamable HTTP backend', () => {
  let backend: ChildProcess;
  let router: RunningRouter;
  let client: Client;
  let port: number;

  before(async () => {
    port = await freePort();
    backend = await startEverythingHttp(port);
    router = await startRouter(
      // A deadline no test waits out: a call that fails, fails for another reason than its timeout.
      testConfig([{ name: 'remote', transport: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: {}, required: true, timeoutMs: 600_000 }]),
    );
    client = await router.connect();
  });
  after(async () => {
    await router.close();
    await stopProcess(backend);
  });

  test('serves a call through the HTTP backend', async () => {
    const { data } = await callTool(client, 'invoke_read_tool', { name: 'get-sum', arguments: { a: 2, b: 40 } });
    assert.equal(data.status, 'ok', JSON.stringify(data));
    assert.ok(JSON.stringify(data.result).includes('42'));
  });

  test('an HTTP backend that goes down fails its calls with error at once, not at their deadline', async () => {
    await stopProcess(backend);
    for (let i = 0; i < 3; i++) {
      const { data } = await callTool(client, 'invoke_read_tool', { name: 'get-sum', arguments: { a: 1, b: 1 } });
      assert.equal(data.status, 'error');
      assert.notEqual(data.error?.code, 'backend_timeout', JSON.stringify(data.error));
    }
  });
});

describe('a killed stdio backend', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'a.txt'), 'still here');
  let router: RunningRouter;
  let client: Client;

  before(async () => {
    router = await startRouter(testConfig([filesBackend(dir)]));
    client = await router.connect();
  });
  after(async () => router.close());

  test('is restarted and serves again', async () => {
    const call = () => callTool(client, 'invoke_read_tool', { name: 'read_text_file', arguments: { path: join(dir, 'a.txt') } });
    assert.equal((await call()).data.status, 'ok');
    killBackendGroups(router);
    // Calls fail until supervision has it back, then it serves again.
    await until(
      async () => {
        const { data } = await call();
        if (data.status === 'ok') return JSON.stringify(data.result).includes('still here');
        assert.equal(data.status, 'error');
        return false;
      },
      60_000,
      'the files backend serving again',
    );
  });
});

/** Kills every stdio backend's process group with SIGKILL, as a crash would. */
function killBackendGroups(router: RunningRouter): void {
  const pids = router.app
    .get(BackendsService)
    .states()
    .flatMap((s) => (s.pid === undefined ? [] : [s.pid]));
  assert.ok(pids.length > 0, 'the backend runs as a child process');
  for (const pid of pids) process.kill(-pid, 'SIGKILL');
}

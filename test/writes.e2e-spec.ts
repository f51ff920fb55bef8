import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  filesBackend,
  memoryBackend,
  readAsModel,
  startRouter,
  tempDir,
  testConfig,
  type RunningRouter,
  type SingleAnswer,
  type ToolResult,
} from './support/router';

const sha256 = (key: string) => createHash('sha256').update(key).digest('hex');
const WRITER_KEY = 'writer-key-' + 'w'.repeat(32);
const OTHER_WRITER_KEY = 'other-writer-key-' + 'o'.repeat(32);
const READER_KEY = 'reader-key-' + 'r'.repeat(32);

/** What a model reads of an answer: the text block's JSON, and whether it is an error. */
async function invoke(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; head: SingleAnswer }> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResult;
  return { isError: result.isError === true, head: readAsModel(result).head };
}

async function connect(router: RunningRouter, key: string | undefined, clients: Client[]): Promise<Client> {
  const client = new Client({ name: 'writes-e2e', version: '1' });
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  const requestInit = { headers };
  await client.connect(new StreamableHTTPClientTransport(new URL(router.url), { requestInit }));
  clients.push(client);
  return client;
}

describe('invoke_tool without writes.enabled', () => {
  const dir = tempDir();
  let router: RunningRouter;
  const clients: Client[] = [];
  before(async () => {
    router = await startRouter(testConfig([filesBackend(dir, { env: {} }), memoryBackend(join(tempDir(), 'm.jsonl'))]));
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await router.close();
  });

  test('is not published, and write_file through it answers as an unknown tool; nothing is written', async () => {
    const client = await connect(router, undefined, clients);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['find_tool', 'invoke_read_tool', 'invoke_read_tool_batch']);
    const target = join(dir, 'a.txt');
    const answer = await invoke(client, 'invoke_tool', { name: 'write_file', arguments: { path: target, content: 'x' } });
    assert.equal(answer.isError, true);
    assert.equal(answer.head.status, 'unknown_tool');
    assert.equal(existsSync(target), false);
  });

  test("memory's create_entities through it answers as an unknown tool; the graph stays empty", async () => {
    const client = await connect(router, undefined, clients);
    const answer = await invoke(client, 'invoke_tool', {
      name: 'create_entities',
      arguments: { entities: [{ name: 'ghost', entityType: 'x', observations: ['never stored'] }] },
    });
    assert.equal(answer.head.status, 'unknown_tool');
    const graph = (await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'read_graph' } })) as ToolResult;
    assert.doesNotMatch(JSON.stringify(graph.content), /never stored/);
  });
});

describe('invoke_tool with the memory server: create without confirmation, delete with it', () => {
  let router: RunningRouter;
  const clients: Client[] = [];
  let writer: Client;
  let otherWriter: Client;
  let reader: Client;
  const graphText = async (): Promise<string> =>
    JSON.stringify(((await reader.callTool({ name: 'invoke_read_tool', arguments: { name: 'read_graph' } })) as ToolResult).content);

  before(async () => {
    router = await startRouter(
      testConfig([memoryBackend(join(tempDir(), 'm.jsonl'))], {
        auth: {
          mode: 'apiKeys',
          allowInsecure: false,
          apiKeys: [
            { principal: 'wanda', sha256: sha256(WRITER_KEY), groups: ['writers'] },
            { principal: 'walt', sha256: sha256(OTHER_WRITER_KEY), groups: ['writers'] },
            { principal: 'rita', sha256: sha256(READER_KEY), groups: ['readers'] },
          ],
        },
        access: {
          rules: [
            { groups: ['writers'], allow: ['*'], write: ['memory:*'] },
            { groups: ['readers'], allow: ['*'] },
          ],
        },
        writes: { enabled: true, allow: ['memory:*'], deny: [] },
      }),
    );
    writer = await connect(router, WRITER_KEY, clients);
    otherWriter = await connect(router, OTHER_WRITER_KEY, clients);
    reader = await connect(router, READER_KEY, clients);
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await router.close();
  });

  test('create_entities runs at once; delete_entities is confirmed, single use, bound to caller and arguments', async () => {
    const entities = {
      entities: [
        { name: 'gateway', entityType: 'service', observations: ['routes tool calls'] },
        { name: 'cache', entityType: 'service', observations: ['keeps answers'] },
      ],
    };
    const denied = await invoke(reader, 'invoke_tool', { name: 'create_entities', arguments: entities });
    assert.equal(denied.head.status, 'unknown_tool');
    assert.doesNotMatch(await graphText(), /routes tool calls/);
    const created = await invoke(writer, 'invoke_tool', { name: 'create_entities', arguments: entities });
    assert.equal(created.head.status, 'ok', 'destructiveHint: false needs no confirmation');
    assert.match(await graphText(), /routes tool calls/);

    const args = { entityNames: ['gateway'] };
    const asked = await invoke(writer, 'invoke_tool', { name: 'delete_entities', arguments: args });
    assert.equal(asked.head.status, 'confirmation_required');
    assert.deepEqual(asked.head.summary!.argument_names, ['entityNames']);
    const token = asked.head.confirmation as string;
    assert.equal((await invoke(reader, 'invoke_tool', { name: 'delete_entities', arguments: args, confirm: token })).head.status, 'unknown_tool');
    assert.equal((await invoke(otherWriter, 'invoke_tool', { name: 'delete_entities', arguments: args, confirm: token })).head.status, 'blocked');
    const otherArgs = await invoke(writer, 'invoke_tool', { name: 'delete_entities', arguments: { entityNames: ['cache'] }, confirm: token });
    assert.equal(otherArgs.head.status, 'blocked');
    assert.match(await graphText(), /keeps answers/, 'the token did not delete another entity');
    assert.match(await graphText(), /routes tool calls/);

    const confirmed = await invoke(writer, 'invoke_tool', { name: 'delete_entities', arguments: args, confirm: token });
    assert.equal(confirmed.head.status, 'ok');
    assert.doesNotMatch(await graphText(), /routes tool calls/);
    await invoke(writer, 'invoke_tool', { name: 'create_entities', arguments: { entities: [entities.entities[0]] } });
    const replay = await invoke(writer, 'invoke_tool', { name: 'delete_entities', arguments: args, confirm: token });
    assert.equal(replay.head.status, 'blocked');
    assert.match(replay.head.error!.message, /already used/);
    assert.match(await graphText(), /routes tool calls/, 'the replay deleted nothing');
  });
});

describe('invoke_tool with writes enabled, through real filesystem and memory servers', () => {
  const dir = tempDir();
  const auditFile = join(tempDir(), 'audit.jsonl');
  let router: RunningRouter;
  const clients: Client[] = [];
  let writer: Client;
  let otherWriter: Client;
  let reader: Client;

  before(async () => {
    writeFileSync(join(dir, 'notes.txt'), 'alpha beta\n');
    router = await startRouter(
      testConfig([filesBackend(dir, { env: {} }), memoryBackend(join(tempDir(), 'm.jsonl'))], {
        auth: {
          mode: 'apiKeys',
          allowInsecure: false,
          apiKeys: [
            { principal: 'wanda', sha256: sha256(WRITER_KEY), groups: ['writers'] },
            { principal: 'walt', sha256: sha256(OTHER_WRITER_KEY), groups: ['writers'] },
            { principal: 'rita', sha256: sha256(READER_KEY), groups: ['readers'] },
          ],
        },
        access: {
          rules: [
            { groups: ['writers'], allow: ['*'], write: ['files:*', 'memory:*'] },
            { groups: ['readers'], allow: ['*'] },
          ],
        },
        writes: { enabled: true, allow: ['files:*', 'memory:create_*'], deny: ['files:move_file'] },
        audit: { sink: 'file', path: auditFile },
      }),
    );
    writer = await connect(router, WRITER_KEY, clients);
    otherWriter = await connect(router, OTHER_WRITER_KEY, clients);
    reader = await connect(router, READER_KEY, clients);
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await router.close();
  });

  test('is published with destructiveHint: true', async () => {
    const { tools } = await writer.listTools();
    const tool = tools.find((t) => t.name === 'invoke_tool');
    assert.ok(tool);
    assert.equal(tool.annotations?.destructiveHint, true);
    assert.equal(tool.annotations?.readOnlyHint, false);
    assert.match(writer.getInstructions() ?? '', /invoke_tool/);
    // The filesystem server's edit_file previews with `dryRun`: the description names both spellings.
    assert.match(tool.description ?? '', /`dry_run`/);
    assert.match(tool.description ?? '', /`dryRun`/);
    const editFile = (await writer.callTool({ name: 'find_tool', arguments: { query: 'edit a file', include_schema: true } })) as ToolResult;
    assert.match(JSON.stringify(editFile.structuredContent), /"dryRun"/, 'the spelling the description names is the one the server uses');
  });

  test('a caller without write permission gets the answer of an unknown tool', async () => {
    const target = join(dir, 'denied.txt');
    const denied = await invoke(reader, 'invoke_tool', { name: 'write_file', arguments: { path: target, content: 'x' } });
    const unknown = await invoke(reader, 'invoke_tool', { name: 'write_file_nowhere', arguments: { path: target, content: 'x' } });
    assert.equal(denied.isError, true);
    assert.deepEqual({ ...denied.head, tool: '' }, { ...unknown.head, tool: '' });
    assert.equal(denied.head.status, 'unknown_tool');
    assert.equal(existsSync(target), false);
    // The same tool the reader may not write is one the writer may: the difference is the permission.
    const asked = await invoke(writer, 'invoke_tool', { name: 'write_file', arguments: { path: target, content: 'x' } });
    assert.equal(asked.head.status, 'confirmation_required');
  });

  test('write_file asks for confirmation, then runs once with it; the file is on disk', async () => {
    const target = join(dir, 'out.txt');
    const args = { path: target, content: 'written through the router' };
    const first = await invoke(writer, 'invoke_tool', { name: 'write_file', server: 'files', arguments: args });
    assert.equal(first.isError, false);
    assert.equal(first.head.status, 'confirmation_required');
    assert.deepEqual(
      { ...first.head.summary, argument_names: [...first.head.summary!.argument_names].sort() },
      { tool: 'write_file', server: 'files', argument_names: ['content', 'path'] },
    );
    assert.ok(!JSON.stringify(first.head).includes('written through the router'), 'argument values are never echoed');
    assert.equal(first.head.confirmation_expires_in_seconds, 120);
    assert.equal(existsSync(target), false, 'nothing runs before confirmation');
    const token = first.head.confirmation as string;

    // Another principal, or other arguments, cannot use it; neither attempt uses it up.
    const stolen = await invoke(otherWriter, 'invoke_tool', { name: 'write_file', arguments: args, confirm: token });
    assert.equal(stolen.head.status, 'blocked');
    assert.match(stolen.head.error!.message, /another caller, tool or arguments/);
    const changed = await invoke(writer, 'invoke_tool', { name: 'write_file', arguments: { ...args, content: 'something else' }, confirm: token });
    assert.equal(changed.head.status, 'blocked');
    assert.equal(existsSync(target), false);

    const confirmed = await invoke(writer, 'invoke_tool', { name: 'write_file', arguments: args, confirm: token });
    assert.equal(confirmed.isError, false);
    assert.equal(confirmed.head.status, 'ok');
    assert.equal(readFileSync(target, 'utf8'), 'written through the router');

    writeFileSync(target, 'changed since');
    const replay = await invoke(writer, 'invoke_tool', { name: 'write_file', arguments: args, confirm: token });
    assert.equal(replay.head.status, 'blocked');
    assert.match(replay.head.error!.message, /already used/);
    assert.equal(readFileSync(target, 'utf8'), 'changed since', 'a replayed token writes nothing');

    const forged = await invoke(writer, 'invoke_tool', { name: 'write_file', arguments: args, confirm: token.slice(0, -2) + 'AA' });
    assert.equal(forged.head.status, 'blocked');

    // Audit: both steps are `write` lines carrying the same confirmation id, never the token.
    const lines = readFileSync(auditFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const writes = lines.filter((l) => l.kind === 'write' && l.tool === 'write_file' && l.principal === 'wanda');
    const asked = writes.find((l) => l.status === 'confirmation_required' && l.confirmationId !== undefined && token.length > 0);
    const ran = writes.find((l) => l.status === 'ok');
    assert.ok(asked && ran);
    assert.equal(ran.entrypoint, 'invoke_tool');
    assert.ok(writes.some((l) => l.status === 'confirmation_required' && l.confirmationId === ran.confirmationId));
    assert.ok(!readFileSync(auditFile, 'utf8').includes(token));

    const metrics = await (await fetch(router.url.replace(/\/mcp$/, '/metrics'))).text();
    assert.match(metrics, /centralmcp_[a-z_]*calls_total\{entrypoint="invoke_tool",backend="files",status="ok"\} [1-9]/);
  });

  test('create_directory (not destructive) and a dry run of edit_file run without confirmation', async () => {
    const made = join(dir, 'made');
    const created = await invoke(writer, 'invoke_tool', { name: 'create_directory', arguments: { path: made } });
    assert.equal(created.head.status, 'ok');
    assert.ok(existsSync(made));

    const edit = { path: join(dir, 'notes.txt'), edits: [{ oldText: 'alpha', newText: 'gamma' }] };
    const preview = await invoke(writer, 'invoke_tool', { name: 'edit_file', arguments: { ...edit, dryRun: true } });
    assert.equal(preview.head.status, 'ok');
    assert.equal(readFileSync(join(dir, 'notes.txt'), 'utf8'), 'alpha beta\n', 'a dry run changes nothing');
    const real = await invoke(writer, 'invoke_tool', { name: 'edit_file', arguments: edit });
    assert.equal(real.head.status, 'confirmation_required');
  });

  test("memory's create_entities runs for a writer, answers as unknown for a reader", async () => {
    const entities = { entities: [{ name: 'router', entityType: 'service', observations: ['fronts MCP servers'] }] };
    const denied = await invoke(reader, 'invoke_tool', { name: 'create_entities', arguments: entities });
    assert.equal(denied.head.status, 'unknown_tool');
    const created = await invoke(writer, 'invoke_tool', { name: 'create_entities', arguments: entities });
    assert.equal(created.head.status, 'ok');
    const graph = (await reader.callTool({ name: 'invoke_read_tool', arguments: { name: 'read_graph' } })) as ToolResult;
    assert.match(JSON.stringify(graph.content), /fronts MCP servers/);
  });

  test('read-only tools, tools outside writes.allow and denied ones are refused', async () => {
    const readOnly = await invoke(writer, 'invoke_tool', { name: 'read_text_file', arguments: { path: join(dir, 'notes.txt') } });
    assert.equal(readOnly.head.status, 'blocked');
    assert.match(readOnly.head.error!.message, /invoke_read_tool/);
    const denied = await invoke(writer, 'invoke_tool', { name: 'move_file', arguments: { source: join(dir, 'notes.txt'), destination: join(dir, 'n.txt') } });
    assert.equal(denied.head.status, 'blocked');
    const outside = await invoke(writer, 'invoke_tool', { name: 'delete_entities', arguments: { entityNames: ['router'] } });
    assert.equal(outside.head.status, 'blocked');
    assert.ok(existsSync(join(dir, 'notes.txt')));
    const batch = (await writer.callTool({
      name: 'invoke_read_tool_batch',
      arguments: { calls: [{ name: 'write_file', arguments: { path: join(dir, 'b.txt'), content: 'x' } }] },
    })) as ToolResult;
    assert.equal((batch.structuredContent as { results: { status: string }[] }).results[0].status, 'blocked');
    assert.equal(existsSync(join(dir, 'b.txt')), false, 'writes never run in a batch');
  });
});

describe('invoke_tool and pinned definitions', () => {
  const dir = tempDir();
  let router: RunningRouter;
  const clients: Client[] = [];
  before(async () => {
    router = await startRouter(
      testConfig([filesBackend(dir, { env: {} })], {
        trust: { mode: 'enforce', pinsFile: join(tempDir(), 'pins.json'), approveNewBackends: false, relistSeconds: 0 },
        writes: { enabled: true, allow: ['*'], deny: [] },
      }),
    );
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await router.close();
  });

  test('a quarantined tool cannot be written, confirmed or not', async () => {
    const client = await connect(router, undefined, clients);
    const target = join(dir, 'q.txt');
    const answer = await invoke(client, 'invoke_tool', { name: 'create_directory', arguments: { path: target } });
    assert.equal(answer.isError, true);
    assert.equal(answer.head.status, 'blocked');
    assert.match(answer.head.error!.message, /quarantined/);
    assert.equal(existsSync(target), false);
  });
});

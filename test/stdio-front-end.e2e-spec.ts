/**
 * `centralmcp-router stdio` as a desktop client meets it: the SDK client spawns the built CLI with
 * `--config`, lists the tools, finds one and reads a file through it; the caller is the configured
 * `stdio.principal`, or the anonymous one. Over raw pipes: stdout carries nothing but JSON-RPC
 * (logs and audit lines go to stderr), no port is opened, a 2026-07-28 request is served too, and
 * closing stdin drains (the call in flight is answered) and exits 0.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { waitFor } from './support/backend-processes';
import { SERVER_ENTRIES } from './support/backend-servers';
import { BUILD, readAsModel, tempDir, type FindAnswer, type SingleAnswer, type ToolResult } from './support/router';

/** The package's bin in the tests' own build. */
const CLI = join(BUILD, 'src', 'cli.js');

const dir = tempDir('centralmcp-stdio-');
writeFileSync(join(dir, 'notes.txt'), 'the stdio front end reads this file\n');

/** A config file with the filesystem server over `dir` as backend `files`, and `extra` YAML after it. */
function configFile(name: string, extra = ''): string {
  const file = join(tempDir(), `${name}.yaml`);
  const yaml = [
    'backends:',
    '  files:',
    '    transport: stdio',
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [${JSON.stringify(SERVER_ENTRIES.filesystem)}, ${JSON.stringify(dir)}]`,
    extra,
  ].join('\n');
  writeFileSync(file, yaml);
  return file;
}

const auditPath = (name: string) => join(dir, `${name}-audit.jsonl`);
const auditLines = (name: string): Record<string, unknown>[] => {
  let text: string;
  try {
    text = readFileSync(auditPath(name), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
};
/** Waits for the audit line `match` describes (the file sink writes behind the answer). */
const auditLine = async (name: string, match: (line: Record<string, unknown>) => boolean) => {
  await waitFor(() => auditLines(name).some(match), 30_000, `audit line in ${name}`);
  return auditLines(name).filter(match);
};

/** The SDK client over the router's stdio, its stderr kept, once the backends are up. */
async function connect(config: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'stdio', '--config', config],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'stdio-e2e', version: '1.0.0' });
  await client.connect(transport);
  await waitFor(() => stderr.includes('"message":"backends started"'), 60_000, 'backends started');
  return { client, stderr: () => stderr };
}

const headOf = <T>(result: unknown) => readAsModel<T>(result as ToolResult).head;

describe('the SDK client spawns centralmcp-router stdio', () => {
  let alice: { client: Client; stderr: () => string };
  let anonymous: { client: Client; stderr: () => string };

  before(async () => {
    const access = ['access:', '  - { groups: [readers], allow: ["files:*"] }', '  - { groups: ["*"], allow: [] }'].join('\n');
    [alice, anonymous] = await Promise.all([
      connect(
        configFile('alice', `${access}\nstdio: { principal: alice, groups: [readers] }\naudit: { sink: file, path: ${JSON.stringify(auditPath('alice'))} }`),
      ),
      connect(configFile('anonymous', `${access}\naudit: { sink: file, path: ${JSON.stringify(auditPath('anonymous'))} }`)),
    ]);
  });

  after(async () => {
    await Promise.allSettled([alice?.client.close(), anonymous?.client.close()]);
  });

  test('lists the same tools as the HTTP endpoint', async () => {
    const { tools } = await alice.client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['find_tool', 'invoke_read_tool', 'invoke_read_tool_batch']);
  });

  test('finds a tool and reads a file through it, as the configured principal', async () => {
    const found = headOf<FindAnswer>(await alice.client.callTool({ name: 'find_tool', arguments: { query: 'read the contents of a text file' } }));
    const hit = found.hits.find((h) => h.name === 'read_text_file');
    assert.ok(hit, JSON.stringify(found).slice(0, 400));
    assert.equal(hit.server, 'files');
    const read = await alice.client.callTool({
      name: 'invoke_read_tool',
      arguments: { name: hit.name, server: hit.server, arguments: { path: join(dir, 'notes.txt') } },
    });
    const { head, blocks } = readAsModel<SingleAnswer>(read as ToolResult);
    assert.equal(head.status, 'ok');
    assert.match(blocks.map((b) => b.text).join(''), /the stdio front end reads this file/);
    const calls = await auditLine('alice', (l) => l.kind === 'call' && l.tool === 'read_text_file');
    assert.deepEqual(
      calls.map((l) => [l.principal, l.status]),
      [['alice', 'ok']],
    );
  });

  test('without stdio.principal the caller is anonymous: only rules for "*" apply', async () => {
    const found = headOf<FindAnswer>(await anonymous.client.callTool({ name: 'find_tool', arguments: { query: 'read the contents of a text file' } }));
    assert.deepEqual(found.hits, []);
    const read = headOf<SingleAnswer>(
      await anonymous.client.callTool({ name: 'invoke_read_tool', arguments: { name: 'read_text_file', arguments: { path: join(dir, 'notes.txt') } } }),
    );
    assert.equal(read.status, 'unknown_tool');
    await auditLine('anonymous', (l) => l.principal === 'anonymous' && l.status === 'unknown_tool');
    assert.match(anonymous.stderr(), /"principal":"anonymous".*"message":"serving MCP on stdio"/);
  });
});

/** Inodes of the sockets `pid` holds that are listening on TCP. */
function listeningSockets(pid: number): string[] {
  const listening = new Set(
    ['tcp', 'tcp6'].flatMap((file) =>
      readFileSync(`/proc/net/${file}`, 'utf8')
        .split('\n')
        .slice(1)
        .map((row) => row.trim().split(/\s+/))
        .filter((cols) => cols[3] === '0A')
        .map((cols) => cols[9]),
    ),
  );
  return readdirSync(`/proc/${pid}/fd`)
    .map((fd) => {
      try {
        return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      } catch {
        return undefined;
      }
    })
    .filter((inode): inode is string => inode !== undefined && listening.has(inode));
}

describe('over raw pipes', () => {
  test('stdout carries only JSON-RPC; no port is open; closing stdin answers the call in flight and exits 0', async () => {
    // Audit lines to the default sink (stdout): in stdio mode they must land on stderr.
    const child = spawn(process.execPath, [CLI, 'stdio', '--config', configFile('raw')], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, CENTRALMCP_ROUTER_LOG_LEVEL: 'debug' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const send = (message: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    await waitFor(() => stderr.includes('"message":"backends started"'), 60_000, 'backends started');
    assert.deepEqual(listeningSockets(child.pid!), []);

    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ method: 'notifications/initialized' });
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    send({ id: 2, method: 'tools/list', params: { _meta: meta } });
    child.stdin.write('this is not json\n');
    send({
      id: 3,
      method: 'tools/call',
      params: { name: 'invoke_read_tool', arguments: { name: 'read_text_file', arguments: { path: join(dir, 'notes.txt') } } },
    });
    child.stdin.end();
    assert.deepEqual(await exited, [0, null]);

    const answers = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { jsonrpc: string; id: unknown; result?: Record<string, unknown>; error?: { code: number } });
    assert.ok(stdout.endsWith('\n'));
    assert.ok(answers.every((a) => a.jsonrpc === '2.0'));
    const byId = new Map(answers.map((a) => [a.id, a]));
    assert.equal(answers.length, 4, stdout.slice(0, 600));
    assert.equal((byId.get(1)?.result?.serverInfo as { name: string }).name, 'centralmcp-router');
    assert.equal(byId.get(2)?.result?.resultType, 'complete');
    assert.equal(byId.get(null)?.error?.code, -32700);
    const read = readAsModel<SingleAnswer>(byId.get(3)?.result as ToolResult);
    assert.equal(read.head.status, 'ok');

    const logs = stderr
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.ok(
      logs.some((l) => l.kind === 'call' && l.tool === 'read_text_file' && l.status === 'ok'),
      'the audit line is on stderr',
    );
    const messages = logs.map((l) => l.message);
    for (const m of ['serving MCP on stdio', 'stdin closed: shutting down', 'drained', 'stopped']) assert.ok(messages.includes(m), m);
  });

  test('--http also serves HTTP on the configured port; SIGTERM drains and exits 0', async () => {
    const child = spawn(process.execPath, [CLI, 'stdio', '--http', '--config', configFile('http')], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, CENTRALMCP_ROUTER_PORT: '0' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitFor(() => stderr.includes('"message":"serving MCP on stdio"'), 60_000, 'serving');
    const url = /"url":"([^"]+)"/.exec(stderr)?.[1];
    assert.ok(url, stderr.slice(0, 600));
    assert.equal((await fetch(url.replace(/\/mcp$/, '/health/live'))).status, 200);
    assert.equal(listeningSockets(child.pid!).length, 1);
    child.kill('SIGTERM');
    assert.deepEqual(await exited, [0, null]);
    assert.equal(stdout, '');
    assert.match(stderr, /"signal":"SIGTERM".*"message":"shutting down"/);
  });
});

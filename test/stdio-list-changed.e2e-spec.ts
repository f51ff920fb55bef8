/**
 * `centralmcp-router stdio`: stdout stays open for the life of the process, so a change of the
 * caller's lists is announced on it, as the initialize answer's `listChanged: true` promises: its
 * tools with tools published per caller (`publish.mode: both`), its resources and prompts always,
 * and only when what the local principal may see changed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { until, waitFor } from './support/backend-processes';
import { SERVER_ENTRIES } from './support/backend-servers';
import { FAULT_SERVER } from './support/fault-backends';
import { type ModernServer, startModernServer } from './support/modern-backend';
import { killTree } from './support/reaper';
import { BUILD, tempDir } from './support/router';

const CLI = join(BUILD, 'src', 'cli.js');

interface Line {
  jsonrpc: string;
  id?: unknown;
  method?: string;
  result?: {
    tools?: { name: string }[];
    resources?: unknown[];
    structuredContent?: { status?: string };
    capabilities?: Record<string, { listChanged?: boolean } | undefined>;
  };
}

let pid: number | undefined;
const modern: ModernServer[] = [];
after(async () => {
  if (pid !== undefined) killTree(pid);
  for (const server of modern) await server.stop();
});

/** Starts `centralmcp-router stdio` with `yaml` as its config; lines of stdout parsed as they come. */
function startStdio(yaml: string[]) {
  const config = join(tempDir('centralmcp-stdio-changes-'), 'router.yaml');
  writeFileSync(config, [...yaml, ''].join('\n'));
  const child = spawn(process.execPath, [CLI, 'stdio', '--config', config], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  pid = child.pid;
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const lines: Line[] = [];
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    for (const part of parts) if (part !== '') lines.push(JSON.parse(part) as Line);
  });
  child.stderr.resume();
  const send = (message: Record<string, unknown>) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const answerTo = async (id: number) => {
    await waitFor(() => lines.some((l) => l.id === id), 60_000, `the answer to ${id}`);
    return lines.find((l) => l.id === id)!;
  };
  return { child, exited, lines, send, answerTo };
}

const told = (lines: Line[], method: string) => lines.filter((l) => l.method === method).length;

test('a tool that turns read-only joins the list, and the client is told on stdout', async () => {
  const { exited, lines, send, answerTo, child } = startStdio([
    'backends:',
    '  fault:',
    '    transport: stdio',
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [${JSON.stringify(FAULT_SERVER)}, "--name", "fault"]`,
    'publish: { mode: both }',
  ]);
  const listed = async (id: number) => ((await answerTo(id)).result?.tools ?? []).map((t) => t.name);

  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  assert.equal((await answerTo(1)).result?.capabilities?.tools?.listChanged, true);
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'tools/list', params: {} });
  const before = await listed(2);
  assert.ok(before.includes('fault__fast'), JSON.stringify(before));
  assert.ok(!before.includes('fault__purge_cache'), 'destructive: not published while writes are off');

  // The backend flips purge_cache to read-only and says its list changed.
  send({ id: 3, method: 'tools/call', params: { name: 'fault__fixture_set_annotations', arguments: { readOnly: true } } });
  await answerTo(3);
  // Told twice in all: when the first catalog arrived (the stream is open from the start, with an
  // empty list), and after this change (the router re-lists the backend when it says so).
  await waitFor(() => told(lines, 'notifications/tools/list_changed') >= 2, 60_000, 'list_changed on stdout after the change');
  assert.equal(told(lines, 'notifications/tools/list_changed'), 2);
  send({ id: 4, method: 'tools/list', params: {} });
  assert.ok((await listed(4)).includes('fault__purge_cache'));

  child.stdin.end();
  assert.deepEqual(await exited, [0, null]);
  pid = undefined;
  assert.ok(lines.every((l) => l.jsonrpc === '2.0'));
});

test("a backend's resources/list_changed reaches the stdio client, which initialize told it would", async () => {
  const { exited, lines, send, answerTo, child } = startStdio([
    'backends:',
    '  fixture:',
    '    transport: stdio',
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [${JSON.stringify(SERVER_ENTRIES.fixture)}, "--offerings"]`,
    // add_resource is not annotated read-only: the operator lets it through.
    'policy: { readOnly: { allow: ["fixture:add_resource"] } }',
  ]);
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'resources/list', params: {} });
  assert.equal((await answerTo(1)).result?.capabilities?.resources?.listChanged, true);
  assert.ok(((await answerTo(2)).result?.resources?.length ?? 0) > 0);
  // The first listing, made while the client started, may have been announced already.
  const first = told(lines, 'notifications/resources/list_changed');
  send({ id: 3, method: 'tools/call', params: { name: 'invoke_read_tool', arguments: { name: 'add_resource', server: 'fixture' } } });
  assert.equal((await answerTo(3)).result?.structuredContent?.status, 'ok');
  await waitFor(() => told(lines, 'notifications/resources/list_changed') > first, 60_000, 'resources/list_changed on stdout');
  child.stdin.end();
  assert.deepEqual(await exited, [0, null]);
  pid = undefined;
});

test('a change of resources the local principal may not see is not announced on stdout; one it may see is', async () => {
  const [seen, hidden] = await Promise.all([startModernServer('seen'), startModernServer('hidden')]);
  modern.push(seen, hidden);
  const { exited, lines, send, answerTo, child } = startStdio([
    'backends:',
    `  seen: { transport: http, url: ${JSON.stringify(seen.url)} }`,
    `  hidden: { transport: http, url: ${JSON.stringify(hidden.url)} }`,
    'access:',
    '  - { groups: [team], allow: ["seen:*"] }',
    'stdio: { principal: local, groups: [team] }',
  ]);
  const resourcesListed = async (server: ModernServer) => (await server.stats()).methods['resources/list'] ?? 0;
  const changes = () => told(lines, 'notifications/resources/list_changed');
  let id = 0;
  const ping = async () => answerTo((send({ id: ++id, method: 'ping' }), id));

  send({ id: ++id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  assert.equal((await answerTo(id)).result?.capabilities?.resources?.listChanged, true);
  send({ method: 'notifications/initialized' });
  // Both backends listed their resources once the router met them.
  await until(async () => (await resourcesListed(hidden)) >= 1 && (await resourcesListed(seen)) >= 1, 60_000, 'both backends listed');
  await ping();
  const before = changes();

  // The hidden backend's list changes: the router lists it again, and tells this caller nothing.
  await hidden.addResource('secret');
  await until(async () => (await resourcesListed(hidden)) >= 2, 60_000, 'the hidden backend listed again');
  await ping();
  // The visible one's change is told, once.
  await seen.addResource('memo');
  await waitFor(() => changes() > before, 60_000, 'resources/list_changed for the visible backend');
  await ping();
  assert.equal(changes(), before + 1);
  send({ id: ++id, method: 'resources/list', params: {} });
  const uris = ((await answerTo(id)).result?.resources ?? []).map((r) => (r as { uri: string }).uri);
  assert.ok(uris.includes('centralmcp://seen/memo://seen/added/memo'), uris.join(', '));
  assert.ok(!uris.some((uri) => uri.includes('hidden')), uris.join(', '));

  child.stdin.end();
  assert.deepEqual(await exited, [0, null]);
  pid = undefined;
});

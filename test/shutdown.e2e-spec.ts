import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { livingInGroup, until, waitFor } from './support/backend-processes';
import { SERVER_ENTRIES } from './support/backend-servers';
import { FAULT_SERVER, readCounts } from './support/fault-backends';
import { killTree } from './support/reaper';
import { stdioBackendYaml } from './support/router-process';
import { ROUTER_MAIN, tempDir } from './support/router';

interface LogLine {
  level: string;
  message: unknown;
  context?: string;
  requestId?: string;
  [field: string]: unknown;
}

/** The router's direct children: its stdio backends, each the leader of its own process group. */
function childrenOf(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
      .split(' ')
      .filter((s) => s.trim() !== '')
      .map(Number),
  );
}

const msgOf = (line: LogLine) => line.message;

let router: ChildProcess | undefined;
let backendGroups: number[] = [];
after(() => {
  // Only if an assertion failed half-way: leave nothing of ours running.
  if (router && router.exitCode === null && router.signalCode === null) killTree(router.pid!);
  for (const group of backendGroups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // already gone, as it should be
    }
  }
});

test('SIGTERM: readiness 503 and new work refused at once, the in-flight call finishes ok, exit 0, no backend survives', async () => {
  const dir = tempDir();
  const configFile = join(dir, 'router.yaml');
  const counts = join(dir, 'held.counts');
  const release = join(dir, 'release');
  writeFileSync(
    configFile,
    [
      'backends:',
      // Holds a call until the test creates `release`: in flight for as long as the test needs.
      ...stdioBackendYaml('held', FAULT_SERVER, ['--name', 'held', '--count-file', counts]),
      '  files:',
      '    transport: stdio',
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: [${JSON.stringify(SERVER_ENTRIES.filesystem)}, ${JSON.stringify(dir)}]`,
      '',
    ].join('\n'),
  );
  router = spawn(process.execPath, [ROUTER_MAIN], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      CENTRALMCP_ROUTER_CONFIG: configFile,
      CENTRALMCP_ROUTER_PORT: '0',
      CENTRALMCP_ROUTER_LOG_LEVEL: 'debug',
      // A ceiling only: the router exits as soon as the held call is answered.
      CENTRALMCP_ROUTER_DRAIN_TIMEOUT_MS: '120000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(router, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const logs: LogLine[] = [];
  let stderr = '';
  let pending = '';
  router.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  router.stdout!.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') logs.push(JSON.parse(line) as LogLine);
  });

  await waitFor(() => logs.some((l) => msgOf(l) === 'router listening') || router!.exitCode !== null, 60_000, 'router listening');
  const listening = logs.find((l) => msgOf(l) === 'router listening');
  assert.ok(listening, `router did not start: ${stderr}`);
  const mcpUrl = listening.url as string;
  const base = mcpUrl.replace(/\/mcp$/, '');
  // Backends connect once the router listens; readiness says when they are up.
  await waitFor(() => logs.some((l) => msgOf(l) === 'backends started'), 60_000, 'backends started');
  assert.equal((await fetch(`${base}/health/ready`)).status, 200);

  backendGroups = childrenOf(router.pid!);
  assert.equal(backendGroups.length, 2, 'one child per stdio backend');
  for (const group of backendGroups) assert.ok(livingInGroup(group).includes(group), `backend ${group} leads its own process group`);

  const client = new Client({ name: 'shutdown-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
  let answered = false;
  const inFlight = client
    .callTool({ name: 'invoke_read_tool', arguments: { name: 'wait_for_file', server: 'held', arguments: { path: release } } })
    .finally(() => (answered = true));
  // The signal comes once the backend has the call (its own record of it).
  await waitFor(() => (readCounts(counts)['tools/call:wait_for_file'] ?? 0) === 1, 60_000, 'the call reached the backend');
  router.kill('SIGTERM');

  // The held call keeps the router draining (it cannot exit) until the test releases it.
  await until(async () => (await fetch(`${base}/health/ready`)).status === 503, 60_000, 'readiness 503 while draining');
  const ready = await fetch(`${base}/health/ready`);
  assert.equal(ready.status, 503, 'readiness turns 503 while draining');
  const readyBody = (await ready.json()) as { error: Record<string, { draining?: boolean }> };
  assert.equal(readyBody.error.lifecycle?.draining, true);

  const refused = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-request-id': 'refused-while-draining' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }),
  });
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get('retry-after'), '1');
  assert.equal(refused.headers.get('x-request-id'), 'refused-while-draining');
  const refusal = (await refused.json()) as { jsonrpc: string; error: { code: number; message: string } };
  assert.equal(refusal.jsonrpc, '2.0');
  assert.equal(refusal.error.code, -32000);

  // Order, not milliseconds: the call was still in flight through all of the above, and the
  // router waits for it.
  assert.equal(answered, false, 'the in-flight call was not cut short by the drain');
  assert.equal(router.exitCode, null, 'the router waits for the call in flight');
  writeFileSync(release, '');
  const result = await inFlight;
  assert.equal(result.isError, false, JSON.stringify(result));
  assert.equal((result.structuredContent as { status: string }).status, 'ok');
  await client.close();

  const [code, signal] = await exited;
  assert.deepEqual({ code, signal }, { code: 0, signal: null }, stderr);
  // Zombies count as dead: their parent (the router) is gone and init reaps them in its own time.
  await waitFor(() => backendGroups.every((group) => livingInGroup(group).length === 0), 60_000, 'every backend process group gone');

  const messages = logs.map(msgOf);
  for (const expected of ['shutting down', 'draining', 'drained', 'stopped']) assert.ok(messages.includes(expected), expected);
  assert.ok(
    logs.some((l) => l.requestId === 'refused-while-draining' && msgOf(l) === 'request refused: draining'),
    "the refusal is logged with the request's correlation id",
  );
  // Results never appear in logs above debug.
  const leaks = logs.filter((l) => !['debug', 'verbose'].includes(l.level) && JSON.stringify(l).includes(`released by ${release}`));
  assert.deepEqual(leaks, []);
});

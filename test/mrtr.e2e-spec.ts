/**
 * 2026-07-28 multi round-trip results from backends (docs/backend-eras.md, "Multi round-trip
 * results"). The real router as its own process (its stdout and stderr captured, at debug level),
 * a 2026-only backend (a v2 SDK server) whose tools shed load with `input_required`, and 2025
 * backends (stdio and Streamable HTTP) that send such a result out of their era. A model's client
 * (the SDK Client) calls through invoke_read_tool and invoke_read_tool_batch.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { until, waitFor } from './support/backend-processes';
import { freePort } from './support/backend-servers';
import { FAULT_SERVER, type FaultHttpServer, fixtureStats, startFaultHttp } from './support/fault-backends';
import { readAsModel, type BatchAnswer, type ToolResult } from './support/router';
import { spawnRouter, type SpawnedRouter, stdioBackendYaml } from './support/router-process';

const MRTR_SERVER = join(__dirname, 'fixtures', 'mrtr-server.js');
/** Every requestState the backends mint carries it; the router must never print it. */
const SECRET = 'RS-SECRET';

interface SeenCall {
  id: unknown;
  name: unknown;
  requestState?: unknown;
}

async function startMrtrServer(name: string): Promise<{ url: string; child: ChildProcess; calls: (tool: string) => Promise<SeenCall[]> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [MRTR_SERVER, '--port', String(port), '--name', name], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await waitFor(() => stderr.includes('listening on port') || child.exitCode !== null, 60_000, 'mrtr server listening');
  if (child.exitCode !== null) throw new Error(`mrtr server exited: ${stderr}`);
  const base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/mcp`,
    child,
    calls: async (tool) => ((await (await fetch(`${base}/control/calls`)).json()) as SeenCall[]).filter((c) => c.name === tool),
  };
}

describe('2026-07-28 multi round-trip results (input_required) from backends', () => {
  let mr: Awaited<ReturnType<typeof startMrtrServer>>;
  let legacyHttp: FaultHttpServer;
  let router: SpawnedRouter;
  let client: Client;

  const read = async (name: string, server: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name: 'invoke_read_tool', arguments: { name, server, arguments: args } })) as ToolResult;
    return { result, ...readAsModel(result) };
  };

  before(async () => {
    [mr, legacyHttp] = await Promise.all([startMrtrServer('mr'), startFaultHttp('oldhttp')]);
    const http = (name: string, url: string, timeoutMs: number) => [`  ${name}:`, '    transport: http', `    url: ${url}`, `    timeoutMs: ${timeoutMs}`];
    router = spawnRouter(
      [
        'backends:',
        ...http('mr', mr.url, 5_000),
        // The same server under a short deadline, for the deadline that passes between rounds.
        ...http('mrslow', mr.url, 1_500),
        ...stdioBackendYaml('old', FAULT_SERVER, ['--name', 'old']),
        ...http('oldhttp', legacyHttp.url, 5_000),
        '',
      ].join('\n'),
    );
    const url = await router.listening();
    const readyUrl = url.replace(/\/mcp$/, '/health/ready');
    await until(async () => (await fetch(readyUrl)).status === 200, 60_000, 'router ready');
    client = new Client({ name: 'mrtr-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  });

  after(async () => {
    await client?.close();
    if (router && router.child.exitCode === null) {
      router.child.kill('SIGTERM');
      await router.exited;
    }
    router?.kill();
    mr?.child.kill('SIGKILL');
    await legacyHttp?.stop();
  });

  test('a backend shedding load once: the call is sent again with its requestState echoed exactly, on a new id, and answers ok', async () => {
    const { result, head, blocks } = await read('mr_busy', 'mr', { city: 'Oslo' });
    assert.equal(result.isError, false, JSON.stringify(result.content));
    assert.equal(head.status, 'ok');
    assert.deepEqual(blocks, [{ type: 'text', text: 'weather in Oslo after a retry' }]);
    const seen = await mr.calls('mr_busy');
    assert.equal(seen.length, 2, JSON.stringify(seen));
    assert.equal(seen[0].requestState, undefined, 'the first attempt carries no state');
    assert.equal(seen[1].requestState, 'RS-SECRET-busy:{"city-digest":"5f1c"}', 'the state comes back byte for byte');
    assert.notEqual(seen[0].id, seen[1].id, 'the retry is a new JSON-RPC request');
  });

  test('a backend that is always busy: four requests, then one error naming the backend', async () => {
    const { result, head } = await read('mr_always_busy', 'mr', { city: 'Oslo' });
    assert.equal(result.isError, true);
    assert.equal(head.status, 'error');
    assert.deepEqual(head.error, { code: 'backend_failed', message: 'backend mr still asked for a retry after 4 rounds' });
    const seen = await mr.calls('mr_always_busy');
    assert.deepEqual(
      seen.map((c) => c.requestState),
      [undefined, 'RS-SECRET-round-1', 'RS-SECRET-round-2', 'RS-SECRET-round-3'],
    );
    assert.equal(new Set(seen.map((c) => c.id)).size, 4);
  });

  test('a backend asking for an elicitation the router never declared: one error naming the method, nothing of its params, no retry', async () => {
    const { result, head } = await read('mr_ask_login', 'mr', { city: 'Oslo' });
    assert.equal(result.isError, true);
    assert.deepEqual(head.error, {
      code: 'backend_failed',
      message: 'backend mr asked for input the router cannot give (elicitation/create); the router declares no elicitation, sampling or roots support',
    });
    assert.ok(!JSON.stringify(result).includes(SECRET), JSON.stringify(result));
    assert.equal((await mr.calls('mr_ask_login')).length, 1);
  });

  test("the rounds share the call's deadline: a retry does not get a fresh timeout", async () => {
    // Each round takes 1 s against a 1.5 s deadline: with a fresh timeout per round the retries
    // would go on until the rounds ran out (backend_failed).
    const { result, head } = await read('mr_slow_busy', 'mrslow', { ms: 1_000 });
    assert.equal(result.isError, true);
    assert.equal(head.error!.code, 'backend_timeout', JSON.stringify(head));
    assert.match(head.error!.message, /^backend mrslow did not (answer|complete) within 1500 ms/);
    assert.ok((await mr.calls('mr_slow_busy')).length <= 2);
  });

  test('a 2025 backend that sends input_required (not its era) fails as a malformed result, stdio and HTTP, with no retry', async () => {
    for (const server of ['old', 'oldhttp']) {
      const { head } = await read('malformed', server, { kind: 'input_required' });
      assert.deepEqual(head.error, { code: 'backend_failed', message: `backend ${server} sent a malformed result` }, server);
    }
    const counts = await fixtureStats(legacyHttp);
    assert.equal(counts.counts['tools/call:malformed'], 1, JSON.stringify(counts));
  });

  test('in a batch, each input_required entry fails alone; the entries around it answer as before', async () => {
    const result = (await client.callTool({
      name: 'invoke_read_tool_batch',
      arguments: {
        calls: [
          { id: 'before', name: 'mr_weather', server: 'mr', arguments: { city: 'Lima' } },
          { id: 'busy', name: 'mr_busy', server: 'mr', arguments: { city: 'Quito' } },
          { id: 'always', name: 'mr_always_busy', server: 'mr', arguments: { city: 'Quito' } },
          { id: 'login', name: 'mr_ask_login', server: 'mr', arguments: { city: 'Quito' } },
          { id: 'old', name: 'malformed', server: 'old', arguments: { kind: 'input_required' } },
          { id: 'after', name: 'mr_weather', server: 'mr', arguments: { city: 'Bogota' } },
        ],
      },
    })) as ToolResult;
    assert.equal(result.isError, false);
    const { head, blocks } = readAsModel<BatchAnswer>(result);
    assert.deepEqual(head.counts, { total: 6, succeeded: 3, failed: 3 }, JSON.stringify(head));
    const texts = blocks.map((b) => b.text ?? '');
    const after = (header: string) => texts[texts.indexOf(header) + 1];
    assert.equal(after('── entry 0, id "before": ok ──'), 'weather in Lima: sunny', JSON.stringify(texts));
    assert.equal(after('── entry 1, id "busy": ok ──'), 'weather in Quito after a retry', JSON.stringify(texts));
    assert.equal(after('── entry 5, id "after": ok ──'), 'weather in Bogota: sunny', JSON.stringify(texts));
    assert.deepEqual(head.failed_ids, ['always', 'login', 'old']);
    const failed = Object.fromEntries(head.results.filter((r) => r.status !== 'ok').map((r) => [r.id, r.error]));
    assert.deepEqual(failed, {
      always: 'backend mr still asked for a retry after 4 rounds',
      login: 'backend mr asked for input the router cannot give (elicitation/create); the router declares no elicitation, sampling or roots support',
      old: 'backend old sent a malformed result',
    });
    assert.ok(!texts.join('\n').includes(SECRET));
  });

  test("no requestState (nor an elicitation's text) ever appears in the router's output, even at debug level", () => {
    const output = `${router.logs.map((l) => JSON.stringify(l)).join('\n')}\n${router.other()}`;
    // The calls above did leave their lines (so the check below reads a real log).
    assert.ok(output.includes('backend mr still asked for a retry after 4 rounds'), output.slice(-2000));
    assert.ok(
      !output.includes(SECRET),
      output
        .split('\n')
        .filter((l) => l.includes(SECRET))
        .join('\n'),
    );
  });
});

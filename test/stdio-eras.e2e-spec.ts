/**
 * 2026-07-28 stdio backends (docs/backend-eras.md): behind one router, a stdio backend that serves
 * only 2026-07-28 (the v2 SDK's `serveStdio` set to refuse 2025 clients), a second one that
 * announces no changes (re-listed when its ttlMs runs out), and the real 2025 server-everything
 * over stdio, all `era: auto`; then `era` forced each way.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { livingInGroup, waitFor } from './support/backend-processes';
import { stdioBackend } from './support/backend-servers';
import {
  callTool,
  everythingBackend,
  readAsModel,
  startRouter,
  tempDir,
  testConfig,
  type BatchAnswer,
  type RunningRouter,
  type ToolResult,
  backendState,
} from './support/router';

/** The compiled 2026-07-28-only stdio server (test/fixtures/modern-stdio-server.ts). */
const MODERN_STDIO = join(__dirname, 'fixtures', 'modern-stdio-server.js');

/** Methods the fixture received, one per line of its log, in order. */
function received(log: string): string[] {
  try {
    return readFileSync(log, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

const count = (log: string, method: string) => received(log).filter((m) => m === method).length;
const textOf = (result: ToolResult): string[] => (result.content ?? []).filter((b) => b.type === 'text').map((b) => b.text ?? '');

describe('a 2026-07-28 stdio backend and a 2025 stdio backend behind one router', () => {
  const dir = tempDir('centralmcp-stdio26-');
  const wxLog = join(dir, 'wx.log');
  const quietLog = join(dir, 'quiet.log');
  const cancelLog = join(dir, 'cancel.log');
  let router: RunningRouter;
  let client: Client;
  const stateOf = (name: string) => backendState(router, name);
  const ready = async () => {
    const res = await fetch(router.url.replace(/\/mcp$/, '/health/ready'));
    return { status: res.status, body: (await res.json()) as { details: Record<string, { state: string }> } };
  };
  const found = async (query: string, server: string): Promise<string[]> => {
    const { isError, data } = await callTool(client, 'find_tool', { query, top_k: 10, server });
    assert.equal(isError, false, JSON.stringify(data));
    return data.hits.map((h: { name: string }) => h.name);
  };

  before(async () => {
    for (const log of [wxLog, quietLog, cancelLog]) writeFileSync(log, '');
    router = await startRouter(
      testConfig([
        stdioBackend('wx', MODERN_STDIO, ['--name', 'wx', '--log', wxLog], { timeoutMs: 10_000 }),
        stdioBackend('quiet', MODERN_STDIO, ['--name', 'quiet', '--ttl-ms', '1000', '--list-changed', 'false', '--log', quietLog], {
          timeoutMs: 10_000,
          required: false,
        }),
        // A short call deadline for the cancellation test (connecting has the whole of it too, era:
        // modern); its slow call sleeps far past it.
        stdioBackend('cancel', MODERN_STDIO, ['--name', 'cancel', '--log', cancelLog], { era: 'modern', timeoutMs: 5_000, required: false }),
        everythingBackend(),
      ]),
    );
    client = await router.connect();
  });
  after(async () => {
    await router?.close();
  });

  test('each backend is up in its own era; the 2026 backend never saw initialize, the probe came first', async () => {
    assert.deepEqual(
      ['wx', 'quiet', 'everything'].map((name) => [name, stateOf(name).status, stateOf(name).era]),
      [
        ['wx', 'up', 'modern'],
        ['quiet', 'up', 'modern'],
        ['everything', 'up', 'legacy'],
      ],
    );
    const { status, body } = await ready();
    assert.equal(status, 200);
    assert.equal(body.details['backend:wx'].state, 'up');
    assert.equal(received(wxLog)[0], 'server/discover');
    assert.equal(count(wxLog, 'initialize'), 0);
    assert.ok(count(wxLog, 'subscriptions/listen') >= 1, 'wx announces listChanged: the router listens');
    assert.equal(count(quietLog, 'subscriptions/listen'), 0, 'quiet announces nothing: no listen');
  });

  test('find_tool lists the tools of both eras', async () => {
    assert.ok((await found('current weather for a city', 'wx')).includes('wx_weather'));
    assert.ok((await found('add two numbers', 'everything')).includes('get-sum'));
  });

  test('invoke_read_tool calls each era and the model reads the text blocks', async () => {
    const weather = await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'wx_weather', server: 'wx', arguments: { city: 'Oslo' } } });
    assert.equal(weather.isError, false, JSON.stringify(weather));
    assert.deepEqual(readAsModel(weather as ToolResult).blocks, [{ type: 'text', text: 'weather in Oslo: sunny (from wx)' }]);
    const sum = await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'get-sum', server: 'everything', arguments: { a: 2, b: 3 } } });
    assert.equal(sum.isError, false);
    assert.ok(
      textOf(sum as ToolResult).some((t) => t.includes('5')),
      JSON.stringify(sum.content),
    );
  });

  test('a 2026 stdio backend shedding load (input_required with a requestState) is asked again with the state, once', async () => {
    const before = count(wxLog, 'tools/call');
    const result = (await client.callTool({
      name: 'invoke_read_tool',
      arguments: { name: 'wx_busy', server: 'wx', arguments: { city: 'Bergen' } },
    })) as ToolResult;
    assert.equal(result.isError, false, JSON.stringify(result));
    assert.match(textOf(result).join('\n'), /weather in Bergen after a retry/);
    assert.equal(count(wxLog, 'tools/call') - before, 2, 'the first attempt and one retry');
  });

  test('invoke_read_tool_batch mixes both eras in one batch, each entry under its header', async () => {
    const result = await client.callTool({
      name: 'invoke_read_tool_batch',
      arguments: {
        calls: [
          { id: 'w', name: 'wx_echo', server: 'wx', arguments: { text: 'from the 2026 stdio backend' } },
          { id: 's', name: 'get-sum', server: 'everything', arguments: { a: 20, b: 22 } },
          { id: 'q', name: 'quiet_weather', server: 'quiet', arguments: { city: 'Lima' } },
        ],
      },
    });
    assert.equal(result.isError, false);
    const { head, blocks } = readAsModel<BatchAnswer>(result as ToolResult);
    assert.deepEqual(head.counts, { total: 3, succeeded: 3, failed: 0 });
    const texts = blocks.map((b) => b.text);
    const at = (header: string) => texts.indexOf(header);
    assert.equal(texts[at('── entry 0, id "w": ok ──') + 1], 'from the 2026 stdio backend', JSON.stringify(texts));
    assert.ok(
      texts.slice(at('── entry 1, id "s": ok ──') + 1, at('── entry 2, id "q": ok ──')).some((t) => t?.includes('42')),
      JSON.stringify(texts),
    );
    assert.equal(texts[at('── entry 2, id "q": ok ──') + 1], 'weather in Lima: sunny (from quiet)');
  });

  test('a tool added to the 2026 stdio backend is announced on its subscription and found', async () => {
    assert.equal(stateOf('wx').tools, 4);
    process.kill(stateOf('wx').pid!, 'SIGUSR2');
    await waitFor(() => stateOf('wx').tools === 5, 60_000, 'wx lists 5 tools');
    assert.ok((await found('a tool added at run time', 'wx')).includes('wx_late'));
    const ran = await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'wx_late', server: 'wx' } });
    const { head, blocks } = readAsModel(ran as ToolResult);
    assert.equal(head.status, 'ok');
    assert.deepEqual(blocks, [{ type: 'text', text: 'wx_late ran' }]);
  });

  test('a stdio backend that announces nothing is re-listed when its ttlMs runs out', async () => {
    const before = count(quietLog, 'tools/list');
    process.kill(stateOf('quiet').pid!, 'SIGUSR2');
    await waitFor(() => stateOf('quiet').tools === 5, 60_000, 'quiet lists 5 tools');
    assert.ok(count(quietLog, 'tools/list') > before);
    assert.equal(count(quietLog, 'subscriptions/listen'), 0);
  });

  test('a call past its deadline is cancelled with notifications/cancelled; the backend serves on', async () => {
    await waitFor(() => stateOf('cancel').status === 'up', 60_000, 'cancel up');
    const slow = await callTool(client, 'invoke_read_tool', { name: 'cancel_slow', server: 'cancel', arguments: { ms: 120_000 } });
    assert.equal(slow.isError, true);
    assert.equal(slow.data.error?.code, 'backend_timeout', JSON.stringify(slow.data));
    await waitFor(() => count(cancelLog, 'notifications/cancelled') === 1, 60_000, 'cancelled sent');
    const fast = await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'cancel_echo', server: 'cancel', arguments: { text: 'still here' } } });
    assert.deepEqual(readAsModel(fast as ToolResult).blocks, [{ type: 'text', text: 'still here' }]);
  });

  test('a killed 2026 stdio backend is restarted by supervision and ready again', async () => {
    const before = stateOf('wx');
    process.kill(before.pid!, 'SIGKILL');
    await waitFor(() => stateOf('wx').restarts > before.restarts && stateOf('wx').status === 'up', 60_000, 'wx restarted');
    const after = stateOf('wx');
    assert.notEqual(after.pid, before.pid);
    assert.equal(after.era, 'modern');
    assert.equal(livingInGroup(before.pid!).length, 0, 'the killed process group is gone');
    assert.equal((await ready()).status, 200);
    // The new child was probed and subscribed afresh (spec stdio "Unexpected Termination").
    assert.equal(count(wxLog, 'server/discover') >= 2, true);
    assert.ok(count(wxLog, 'subscriptions/listen') >= 2);
    const again = await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'wx_weather', server: 'wx', arguments: { city: 'Rome' } } });
    assert.deepEqual(readAsModel(again as ToolResult).blocks, [{ type: 'text', text: 'weather in Rome: sunny (from wx)' }]);
  });
});

describe('era: auto against a 2025 stdio server that never answers server/discover', () => {
  const log = join(tempDir('centralmcp-stdio26-'), 'silent.log');
  let router: RunningRouter;
  let client: Client;
  const stateOf = (name: string) => backendState(router, name);

  before(async () => {
    writeFileSync(log, '');
    // The probe waits half of timeoutMs, then the same child gets initialize.
    router = await startRouter(testConfig([stdioBackend('silent', join(__dirname, 'fixtures', 'silent-legacy-stdio-server.js'), [log], { timeoutMs: 6_000 })]));
    client = await router.connect();
  });
  after(async () => {
    await router?.close();
  });

  test('the probe times out and the same process is initialized as a 2025 server', async () => {
    const state = stateOf('silent');
    assert.equal(state.status, 'up');
    assert.equal(state.era, 'legacy');
    const lines = received(log);
    assert.deepEqual(new Set(lines.map((l) => l.split(' ')[0])), new Set([String(state.pid)]), 'one process: ' + lines.join('; '));
    const methods = lines.map((l) => l.split(' ')[1]);
    assert.equal(methods[0], 'server/discover');
    assert.ok(methods.indexOf('initialize') > 0, methods.join(', '));
    const hush = await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'hush', server: 'silent' } });
    assert.deepEqual(readAsModel(hush as ToolResult).blocks, [{ type: 'text', text: `hush from ${state.pid}` }]);
  });
});

describe('stdio era set in config', () => {
  let router: RunningRouter;
  const stateOf = (name: string) => backendState(router, name);

  before(async () => {
    router = await startRouter(
      testConfig([
        stdioBackend('forced-modern', MODERN_STDIO, ['--name', 'fm'], { era: 'modern' }),
        stdioBackend('forced-legacy', MODERN_STDIO, ['--name', 'fl'], { era: 'legacy', required: false }),
        everythingBackend({ name: 'old-as-modern', era: 'modern', required: false }),
      ]),
    );
  });
  after(async () => {
    await router?.close();
  });

  test('era: modern connects without a fallback; the wrong era is a clear connect failure naming it', () => {
    assert.equal(stateOf('forced-modern').status, 'up');
    assert.equal(stateOf('forced-modern').era, 'modern');
    const legacy = stateOf('forced-legacy');
    assert.equal(legacy.status, 'down');
    assert.match(legacy.lastError ?? '', /speaks only MCP 2026-07-28 .*set era: auto or modern/, legacy.lastError);
    const old = stateOf('old-as-modern');
    assert.equal(old.status, 'down');
    assert.match(old.lastError ?? '', /does not speak MCP 2026-07-28/, old.lastError);
  });
});

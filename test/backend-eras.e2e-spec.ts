/**
 * The router's back speaks both MCP eras (docs/backend-eras.md). Behind one router:
 * a backend that serves only 2026-07-28 (the v2 SDK's handler set to refuse 2025 clients), a second
 * one that announces no changes (its tools are re-listed when their ttlMs runs out), and the real
 * 2025 server-everything over Streamable HTTP. All three are `era: auto`.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { waitFor } from './support/backend-processes';
import { freePort, httpBackend, startEverythingHttp, stopProcess } from './support/backend-servers';
import { type ModernServer, startModernServer } from './support/modern-backend';
import { callTool, readAsModel, startRouter, testConfig, type BatchAnswer, type RunningRouter, type ToolResult, backendState } from './support/router';

describe('a 2026-07-28 backend and a 2025 backend behind one router', () => {
  let modern: ModernServer;
  let quiet: ModernServer;
  let everything: ChildProcess;
  let router: RunningRouter;
  let client: Client;
  const stateOf = (name: string) => backendState(router, name);
  const ready = async () => {
    const res = await fetch(router.url.replace(/\/mcp$/, '/health/ready'));
    return { status: res.status, body: (await res.json()) as { details: Record<string, { state: string; required: boolean }> } };
  };
  const found = async (query: string, server: string): Promise<string[]> => {
    const { isError, data } = await callTool(client, 'find_tool', { query, top_k: 10, server });
    assert.equal(isError, false, JSON.stringify(data));
    return data.hits.map((h: { name: string }) => h.name);
  };
  const textOf = (result: ToolResult): string[] => (result.content ?? []).filter((b) => b.type === 'text').map((b) => b.text ?? '');

  before(async () => {
    const everythingPort = await freePort();
    [modern, quiet, everything] = await Promise.all([
      startModernServer('wx'),
      startModernServer('quiet', { ttlMs: 1_000, listChanged: false }),
      startEverythingHttp(everythingPort),
    ]);
    router = await startRouter(
      testConfig([
        httpBackend('wx', modern.url, { timeoutMs: 5_000 }),
        httpBackend('quiet', quiet.url, { timeoutMs: 5_000, required: false }),
        httpBackend('everything', `http://127.0.0.1:${everythingPort}/mcp`, { timeoutMs: 15_000 }),
      ]),
    );
    client = await router.connect();
  });
  after(async () => {
    await router?.close();
    await Promise.all([modern?.stop(), quiet?.stop(), everything && stopProcess(everything)]);
  });

  test('each backend is up in its own era; the 2026 backend never saw initialize', async () => {
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
    assert.equal((await modern.stats()).methods.initialize, undefined);
  });

  test('find_tool lists the tools of both eras', async () => {
    assert.ok((await found('current weather for a city', 'wx')).includes('wx_weather'));
    assert.ok((await found('add two numbers', 'everything')).includes('get-sum'));
  });

  test('invoke_read_tool calls each era; the 2026 call carries Mcp-Method, Mcp-Name and the version', async () => {
    const weather = await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'wx_weather', server: 'wx', arguments: { city: 'Oslo' } } });
    assert.equal(weather.isError, false, JSON.stringify(weather));
    assert.ok(textOf(weather as ToolResult).includes('weather in Oslo: sunny (from wx)'), JSON.stringify(weather.content));
    const sum = await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'get-sum', server: 'everything', arguments: { a: 2, b: 3 } } });
    assert.equal(sum.isError, false);
    assert.ok(
      textOf(sum as ToolResult).some((t) => t.includes('5')),
      JSON.stringify(sum.content),
    );
    const { headers } = await modern.stats();
    assert.ok(headers.includes('tools/call mcp-method=tools/call mcp-name=wx_weather mcp-protocol-version=2026-07-28'), headers.join('\n'));
    assert.ok(headers.includes('tools/list mcp-method=tools/list mcp-name=undefined mcp-protocol-version=2026-07-28'), headers.join('\n'));
  });

  test('x-mcp-header: an annotated argument travels as Mcp-Param-*; a tool with an invalid annotation is left out', async () => {
    // The v2 server refuses a call whose annotated argument has no header (HeaderMismatch).
    const regional = await client.callTool({
      name: 'invoke_read_tool',
      arguments: { name: 'wx_regional', server: 'wx', arguments: { region: 'eu-north', city: 'Oslo' } },
    });
    assert.equal(regional.isError, false, JSON.stringify(regional.content));
    assert.deepEqual(readAsModel(regional as ToolResult).blocks, [{ type: 'text', text: 'Oslo in eu-north' }]);
    const { headers } = await modern.stats();
    assert.ok(
      headers.some((h) => h.startsWith('tools/call mcp-method=tools/call mcp-name=wx_regional') && h.endsWith('mcp-param-region=eu-north')),
      headers.join('\n'),
    );
    assert.equal(stateOf('wx').tools, 3, 'weather, echo, regional; broken left out');
    assert.ok(!(await found('a tool whose header annotation is invalid', 'wx')).includes('wx_broken'));
    const broken = await callTool(client, 'invoke_read_tool', { name: 'wx_broken', server: 'wx', arguments: { count: 1 } });
    assert.equal(broken.isError, true);
  });

  test('invoke_read_tool_batch mixes both eras in one batch, each entry under its header', async () => {
    const result = await client.callTool({
      name: 'invoke_read_tool_batch',
      arguments: {
        calls: [
          { id: 'w', name: 'wx_echo', server: 'wx', arguments: { text: 'from the 2026 backend' } },
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
    assert.ok(at('── entry 0, id "w": ok ──') >= 0 && texts[at('── entry 0, id "w": ok ──') + 1] === 'from the 2026 backend', JSON.stringify(texts));
    assert.ok(
      texts.slice(at('── entry 1, id "s": ok ──') + 1, at('── entry 2, id "q": ok ──')).some((t) => t?.includes('42')),
      JSON.stringify(texts),
    );
    assert.equal(texts[at('── entry 2, id "q": ok ──') + 1], 'weather in Lima: sunny (from quiet)');
  });

  test('a tool added to the 2026 backend is announced on subscriptions/listen and found', async () => {
    assert.ok(!(await found('forecast for tomorrow', 'wx')).includes('wx_forecast'));
    await modern.addTool('wx_forecast');
    await waitFor(() => stateOf('wx').tools === 4, 60_000, 'wx lists 4 tools');
    assert.ok((await found('tool added at run time wx_forecast', 'wx')).includes('wx_forecast'));
    const ran = await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'wx_forecast', server: 'wx' } });
    const { head, blocks } = readAsModel(ran as ToolResult);
    assert.equal(head.status, 'ok');
    assert.deepEqual(blocks, [{ type: 'text', text: 'wx_forecast ran' }]);
    assert.ok(((await modern.stats()).methods['subscriptions/listen'] ?? 0) >= 1);
  });

  test('a backend that announces nothing is re-listed when its ttlMs runs out', async () => {
    assert.equal(stateOf('quiet').tools, 3);
    const listsBefore = (await quiet.stats()).methods['tools/list'] ?? 0;
    await quiet.addTool('quiet_tides');
    await waitFor(() => stateOf('quiet').tools === 4, 60_000, 'quiet lists 4 tools');
    assert.ok((await found('tool added at run time quiet_tides', 'quiet')).includes('quiet_tides'));
    assert.ok(((await quiet.stats()).methods['tools/list'] ?? 0) > listsBefore);
    assert.equal((await quiet.stats()).methods['subscriptions/listen'], undefined, 'no listen stream without listChanged');
  });

  test('the 2026 backend going down and up is supervised like any other', async () => {
    await modern.stop();
    // Its listen stream breaks; the probe (server/discover) fails; it is down and readiness says so.
    await waitFor(() => stateOf('wx').status === 'down', 60_000, 'wx down');
    const down = await ready();
    assert.equal(down.status, 503);
    const failed = await callTool(client, 'invoke_read_tool', { name: 'wx_weather', server: 'wx', arguments: { city: 'Oslo' } });
    assert.equal(failed.isError, true);
    assert.match(JSON.stringify(failed.data), /backend_unavailable|not connected/);
    await modern.restart();
    await waitFor(() => stateOf('wx').status === 'up', 60_000, 'wx up again');
    assert.ok(stateOf('wx').restarts >= 1);
    assert.equal((await ready()).status, 200);
    const again = await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'wx_weather', server: 'wx', arguments: { city: 'Rome' } } });
    assert.ok(textOf(again as ToolResult).includes('weather in Rome: sunny (from wx)'));
  });
});

describe('era set in config', () => {
  let modern: ModernServer;
  let everything: ChildProcess;
  let router: RunningRouter;
  const stateOf = (name: string) => backendState(router, name);

  before(async () => {
    const everythingPort = await freePort();
    [modern, everything] = await Promise.all([startModernServer('wx'), startEverythingHttp(everythingPort)]);
    router = await startRouter(
      testConfig([
        httpBackend('forced-modern', modern.url, { era: 'modern', timeoutMs: 5_000 }),
        // A 2025 client at a 2026-only server: refused, and the refusal names the versions.
        httpBackend('forced-legacy', modern.url, { era: 'legacy', timeoutMs: 5_000, required: false }),
        httpBackend('old-as-modern', `http://127.0.0.1:${everythingPort}/mcp`, { era: 'modern', timeoutMs: 15_000, required: false }),
      ]),
    );
  });
  after(async () => {
    await router?.close();
    await Promise.all([modern?.stop(), everything && stopProcess(everything)]);
  });

  test('era: modern skips nothing but the fallback; the wrong era is a clear connect failure', () => {
    assert.equal(stateOf('forced-modern').status, 'up');
    assert.equal(stateOf('forced-modern').era, 'modern');
    const legacy = stateOf('forced-legacy');
    assert.equal(legacy.status, 'down');
    assert.match(legacy.lastError ?? '', /2026-07-28|protocol version/i, legacy.lastError);
    const old = stateOf('old-as-modern');
    assert.equal(old.status, 'down');
    assert.match(old.lastError ?? '', /does not speak MCP 2026-07-28/, old.lastError);
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { LifecycleService } from '../src/lifecycle/lifecycle.service';
import { ListChangeStreams } from '../src/mcp/list-change-streams';
import { SERVER_ENTRIES, stdioBackend } from './support/backend-servers';
import { readAsModel, startRouter, testConfig, type RunningRouter, type SingleAnswer, type ToolResult } from './support/router';
import { sseMessages } from './support/sse';

type Head = SingleAnswer & { resume?: string };

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

describe('notifications/tools/list_changed', () => {
  let router: RunningRouter;
  const clients: Client[] = [];
  const closers: (() => Promise<void>)[] = [];
  before(async () => {
    router = await startRouter(
      testConfig([stdioBackend('fixture', SERVER_ENTRIES.fixture, [])], {
        // The fixture's add_tool adds `added_<n>`: both read-only by the operator, so they are published.
        policy: { readOnly: { allow: ['fixture:add_tool', 'fixture:added_*'], deny: [] } },
        publish: { mode: 'both', maxDirectTools: 128 },
      }),
    );
  });
  after(async () => {
    await Promise.allSettled([...clients.map((c) => c.close()), ...closers.map((close) => close())]);
    await router.close();
  });

  test('a client that keeps the GET stream is told when its list changes, and then lists the new tool', async () => {
    const listener = await connect(router, clients);
    assert.equal(listener.getServerCapabilities()?.tools?.listChanged, true);
    const before = (await listener.listTools()).tools.map((t) => t.name);
    assert.ok(before.includes('fixture__add_tool'));
    const told = new Promise<void>((resolve) => listener.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    // The stream is open once the router counts it; the SDK opens it after `initialized`.
    await waitForStreams(router, (n) => n > 0);
    const caller = await connect(router, clients);
    assert.equal((await call(caller, 'fixture__add_tool', {})).head.status, 'ok');
    await told;
    const after = (await listener.listTools()).tools.map((t) => t.name);
    const added = after.filter((n) => !before.includes(n));
    assert.equal(added.length, 1);
    assert.match(added[0], /^fixture__added_\d+$/);
  });

  test('a 2026-07-28 client subscribes with subscriptions/listen and is told, under its subscription id', async () => {
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
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'sub-1',
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true }, _meta: envelope },
      }),
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const messages = sseMessages(response);
    // The acknowledgment is sent once the subscription is registered.
    const ack = await messages.next();
    assert.deepEqual(ack.value, {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } },
    });
    const caller = await connect(router, clients);
    assert.equal((await call(caller, 'fixture__add_tool', {})).head.status, 'ok');
    const changed = await messages.next();
    assert.deepEqual(changed.value, {
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } },
    });
    const open = router.app.get(ListChangeStreams).size;
    await messages.return(undefined);
    // The client left: its subscription is gone.
    await waitForStreams(router, (n) => n < open);
  });

  test('the SDK v2 client (2026-07-28) subscribes by itself and refreshes its tools on a change', async () => {
    const open = router.app.get(ListChangeStreams).size;
    const refreshed = new Promise<string[]>((resolve, reject) => {
      const client = new ClientV2(
        { name: 'publish-v2', version: '1' },
        {
          versionNegotiation: { mode: 'auto' },
          listChanged: { tools: { onChanged: (error, tools) => (error ? reject(error) : resolve((tools ?? []).map((t) => t.name))) } },
        },
      );
      closers.push(() => client.close());
      void client.connect(new TransportV2(new URL(router.url))).catch(reject);
    });
    await waitForStreams(router, (n) => n > open);
    const before = new Set((await (await connect(router, clients)).listTools()).tools.map((t) => t.name));
    const caller = await connect(router, clients);
    assert.equal((await call(caller, 'fixture__add_tool', {})).head.status, 'ok');
    const names = await refreshed;
    assert.equal(names.filter((n) => !before.has(n) && /^fixture__added_\d+$/.test(n)).length, 1);
  });

  test('draining ends the streams, so they never hold the drain up', async () => {
    const open = router.app.get(ListChangeStreams).size;
    await connect(router, clients);
    await waitForStreams(router, (n) => n > open);
    const lifecycle = router.app.get(LifecycleService);
    lifecycle.startDraining();
    assert.equal(router.app.get(ListChangeStreams).size, 0);
    // The drain deadline is far; idle comes as soon as the streams' requests are over.
    assert.equal(await lifecycle.waitForIdle(60_000), true);
  });

  test('with publish.mode meta there is no stream to open: GET /mcp is 405', async () => {
    const meta = await startRouter(testConfig([stdioBackend('fixture', SERVER_ENTRIES.fixture, [])]));
    try {
      const response = await fetch(meta.url, { headers: { accept: 'text/event-stream' } });
      assert.equal(response.status, 405);
    } finally {
      await meta.close();
    }
  });
});

/** Resolves once the number of tool list streams the router holds is as `expected` says. */
async function waitForStreams(router: RunningRouter, expected: (open: number) => boolean): Promise<void> {
  const streams = router.app.get(ListChangeStreams);
  // A generous ceiling, so a stream that never comes fails the test rather than hanging it.
  for (let polls = 0; !expected(streams.size); polls++) {
    assert.ok(polls < 6_000, `the open streams stayed at ${streams.size}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PromptListChangedNotificationSchema, ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ListChangeStreams } from '../src/mcp/list-change-streams';
import { waitFor } from './support/backend-processes';
import { httpBackend, stdioBackend } from './support/backend-servers';
import { type ModernServer, startModernServer } from './support/modern-backend';
import { startRouter, testConfig, type RunningRouter } from './support/router';
import { sseMessages } from './support/sse';

const sha256 = (key: string) => createHash('sha256').update(key).digest('hex');

/** The text of a text entry of a read (a blob entry has none). */
function textOf(entry: object): string {
  return 'text' in entry && typeof entry.text === 'string' ? entry.text : '';
}

describe('resources and prompts of a backend that speaks only MCP 2026-07-28', () => {
  let modern: ModernServer;
  let router: RunningRouter;
  let client: Client;

  before(async () => {
    modern = await startModernServer('wx');
    router = await startRouter(testConfig([httpBackend('wx', modern.url, { timeoutMs: 5_000 })]));
    client = await router.connect();
  });
  after(async () => {
    await router?.close();
    await modern?.stop();
  });

  test('the router declares what the backend declared at discovery', () => {
    const declared = client.getServerCapabilities();
    assert.ok(declared?.resources, 'resources declared');
    assert.ok(declared?.prompts, 'prompts declared');
  });

  test('its resources and templates are listed under the backend, and a read reaches it with its own URI', async () => {
    const { resources } = await client.listResources();
    const note = resources.find((r) => r.uri === 'centralmcp://wx/memo://wx/note');
    assert.ok(note, `listed: ${resources.map((r) => r.uri).join(', ')}`);
    assert.equal(note.name, 'wx__note');
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.ok(resourceTemplates.some((t) => t.uriTemplate === 'centralmcp://wx/memo://wx/notes/{id}'));

    const read = await client.readResource({ uri: 'centralmcp://wx/memo://wx/note' });
    assert.equal(textOf(read.contents[0]), 'a note from wx');
    assert.equal(read.contents[0].uri, 'centralmcp://wx/memo://wx/note');
    const expanded = await client.readResource({ uri: 'centralmcp://wx/memo://wx/notes/7' });
    assert.equal(textOf(expanded.contents[0]), 'note 7 from wx');
  });

  test('its prompts are listed and fetched with their arguments', async () => {
    const { prompts } = await client.listPrompts();
    const brief = prompts.find((p) => p.name === 'wx__wx_brief');
    assert.ok(brief, `listed: ${prompts.map((p) => p.name).join(', ')}`);
    const got = await client.getPrompt({ name: 'wx__wx_brief', arguments: { topic: 'tides' } });
    const content = got.messages[0].content;
    assert.equal(content.type === 'text' ? content.text : '', 'Brief me on tides (from wx)');
  });

  test('each request went the 2026-07-28 way: the Mcp-Name header mirrors the URI of a read and the name of a get', async () => {
    const { headers } = await modern.stats();
    assert.ok(headers.includes('resources/read mcp-method=resources/read mcp-name=memo://wx/note mcp-protocol-version=2026-07-28'), headers.join('\n'));
    assert.ok(headers.includes('prompts/get mcp-method=prompts/get mcp-name=wx_brief mcp-protocol-version=2026-07-28'));
    assert.ok(headers.some((h) => h.startsWith('resources/list mcp-method=resources/list mcp-name=undefined')));
  });

  test('a resource the backend does not have fails as a backend error, and the next read still works', async () => {
    await assert.rejects(client.readResource({ uri: 'centralmcp://wx/memo://wx/missing' }), /backend_failed|JSON-RPC error/);
    const read = await client.readResource({ uri: 'centralmcp://wx/memo://wx/note' });
    assert.equal(textOf(read.contents[0]), 'a note from wx');
  });
});

describe('resources and prompts of a 2026-07-28 backend over stdio', () => {
  let router: RunningRouter;
  before(async () => {
    const server = join(__dirname, 'fixtures', 'modern-stdio-server.js');
    router = await startRouter(testConfig([stdioBackend('memo', server, ['--name', 'memo'], { era: 'modern', timeoutMs: 10_000 })]));
  });
  after(async () => {
    await router?.close();
  });

  test('listed, read and fetched through the router', async () => {
    const client = await router.connect();
    const { resources } = await client.listResources();
    assert.ok(resources.some((r) => r.uri === 'centralmcp://memo/memo://memo/note'));
    const read = await client.readResource({ uri: 'centralmcp://memo/memo://memo/note' });
    assert.equal(textOf(read.contents[0]), 'a stdio note from memo');
    const got = await client.getPrompt({ name: 'memo__memo_brief', arguments: { topic: 'tides' } });
    const content = got.messages[0].content;
    assert.equal(content.type === 'text' ? content.text : '', 'Brief me on tides (from memo over stdio)');
  });
});

describe('resources/list_changed to HTTP clients that keep a stream', () => {
  const ALICE_KEY = 'alice-key-' + 'a'.repeat(32);
  const CAROL_KEY = 'carol-key-' + 'c'.repeat(32);
  let modern: ModernServer;
  let router: RunningRouter;
  const clients: Client[] = [];

  const connect = async (key: string) => {
    const client = new Client({ name: 'offerings-changes-e2e', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(router.url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    clients.push(client);
    return client;
  };
  const streams = () => router.app.get(ListChangeStreams);

  before(async () => {
    modern = await startModernServer('wx');
    router = await startRouter(
      testConfig([httpBackend('wx', modern.url, { timeoutMs: 5_000 })], {
        auth: {
          mode: 'apiKeys',
          allowInsecure: false,
          apiKeys: [
            { principal: 'alice', sha256: sha256(ALICE_KEY), groups: ['readers'] },
            { principal: 'carol', sha256: sha256(CAROL_KEY), groups: ['tools-only'] },
          ],
        },
        access: {
          rules: [
            { groups: ['readers'], allow: ['wx:*'] },
            { groups: ['tools-only'], allow: ['wx:wx_weather'] },
          ],
        },
      }),
    );
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await router?.close();
    await modern?.stop();
  });

  test('a backend that adds a resource: the client with a GET stream is told and lists it; one without a stream gets nothing and goes on', async () => {
    const alice = await connect(ALICE_KEY);
    assert.deepEqual(alice.getServerCapabilities()?.resources, { listChanged: true });
    const told = new Promise<void>((resolve) => alice.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve()));
    const promptsTold: unknown[] = [];
    alice.setNotificationHandler(PromptListChangedNotificationSchema, (n) => void promptsTold.push(n));
    // The SDK opens its GET stream after `initialized`; the router counts it once open.
    await waitFor(() => streams().size === 1, 60_000, 'alice keeps a stream');

    // Carol may use no backend's resources or prompts (tools of wx named one by one): in meta mode
    // she has no list that can change, her GET is refused (405) and the SDK goes on without one.
    const carol = await connect(CAROL_KEY);
    assert.equal(carol.getServerCapabilities()?.resources, undefined);
    const get = await fetch(router.url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${CAROL_KEY}` } });
    assert.equal(get.status, 405);
    await get.body?.cancel();
    assert.equal(streams().size, 1);

    await modern.addResource('tides');
    await told;
    const { resources } = await alice.listResources();
    assert.ok(
      resources.some((r) => r.uri === 'centralmcp://wx/memo://wx/added/tides'),
      resources.map((r) => r.uri).join(', '),
    );
    // Only the list that changed is announced.
    assert.deepEqual(promptsTold, []);

    // Nothing broke for the client without a stream.
    const called = await carol.callTool({ name: 'invoke_read_tool', arguments: { name: 'wx_weather', server: 'wx', arguments: { city: 'Oslo' } } });
    assert.notEqual(called.isError, true);
    await assert.rejects(carol.readResource({ uri: 'centralmcp://wx/memo://wx/added/tides' }), /Resource not found/);
  });

  test('a 2026-07-28 client subscribes to resource and prompt changes; tools it may not ask of a static surface', async () => {
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
        authorization: `Bearer ${ALICE_KEY}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'sub-1',
        method: 'subscriptions/listen',
        params: { notifications: { toolsListChanged: true, resourcesListChanged: true, promptsListChanged: true }, _meta: envelope },
      }),
    });
    assert.equal(response.status, 200);
    const messages = sseMessages(response);
    const meta = { 'io.modelcontextprotocol/subscriptionId': 'sub-1' };
    assert.deepEqual((await messages.next()).value, {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { resourcesListChanged: true, promptsListChanged: true }, _meta: meta },
    });
    await modern.addResource('waves');
    assert.deepEqual((await messages.next()).value, { jsonrpc: '2.0', method: 'notifications/resources/list_changed', params: { _meta: meta } });
    await messages.return(undefined);
  });
});

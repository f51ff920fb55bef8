import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { httpBackend } from './support/backend-servers';
import { type ModernServer, startModernServer } from './support/modern-backend';
import { startRouter, testConfig, type RunningRouter } from './support/router';

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

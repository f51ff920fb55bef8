import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { freePort, httpBackend, SERVER_ENTRIES, stdioBackend } from './support/backend-servers';
import { readAsModel, startRouter, testConfig, type FindAnswer, type RunningRouter } from './support/router';

/**
 * What `find_tool` answers when it has no match to give: a model is never left with an empty
 * list and nothing to go on (README "find_tool").
 */

const NO_MATCH_NOTE =
  'no close match: no tool matched the words of the query; the hits are the first tools of the catalog (score 0), ' +
  'not matches; `servers` lists the servers available, with what each serves; try other words or name a `server`';
const OFFLINE_NOTE = 'no tools are available: this server is not connected: offline (down); try again shortly';
const OFFLINE = { name: 'offline', tools: 0, connected: false, summary: 'no tools known yet' };
const OFFLINE_STATE = { name: 'offline', state: 'down' };

async function find(client: Client, args: Record<string, unknown>): Promise<{ isError: boolean; data: unknown }> {
  const result = await client.callTool({ name: 'find_tool', arguments: args });
  // What the model reads is what a program reads: one compact JSON text block.
  assert.deepEqual(readAsModel(result as never), { head: result.structuredContent, blocks: [] });
  return { isError: result.isError === true, data: result.structuredContent };
}

describe('find_tool with a backend up and one down', () => {
  let router: RunningRouter;
  let client: Client;

  before(async () => {
    const offline = httpBackend('offline', `http://127.0.0.1:${await freePort()}/mcp`, { required: false, timeoutMs: 2_000 });
    // Every fixture tool is read-only by the operator's word: these answers' shape is under test, not the gate.
    router = await startRouter(
      testConfig([stdioBackend('fixture', SERVER_ENTRIES.fixture, []), offline], { policy: { readOnly: { allow: ['fixture:*'], deny: [] } } }),
    );
    client = await router.connect();
  });
  after(async () => router.close());

  test('nothing matches: the first tools of the catalog, score 0, a note and the servers available', async () => {
    assert.deepEqual(await find(client, { query: 'zzqx wubble', top_k: 2 }), {
      isError: false,
      data: {
        hits: [
          {
            name: 'add_tool',
            server: 'fixture',
            description: 'adds a tool and notifies tools/list_changed',
            params: [],
            read_only: true,
            destructive: false,
            idempotent: true,
            score: 0,
          },
          {
            name: 'big',
            server: 'fixture',
            description: 'answers with a text of `bytes` bytes',
            params: [],
            read_only: true,
            destructive: false,
            idempotent: true,
            score: 0,
          },
        ],
        note: NO_MATCH_NOTE,
        servers: [{ name: 'fixture', tools: 8, connected: true, summary: '8 tools: big, small, sleep, grandchild, …' }],
        unavailable_servers: [OFFLINE_STATE],
      },
    });
  });

  test('a match answers its hits and no note', async () => {
    const { isError, data } = (await find(client, { query: 'structured content', top_k: 1 })) as { isError: boolean; data: FindAnswer };
    assert.equal(isError, false);
    assert.deepEqual(Object.keys(data), ['hits', 'unavailable_servers']);
    assert.deepEqual(data.unavailable_servers, [OFFLINE_STATE], 'a match still says which server is down');
    assert.equal(data.hits[0].name, 'structured');
    assert.ok(data.hits[0].score > 0);
  });

  test('an unknown server is invalid_arguments naming the servers the caller may use', async () => {
    assert.deepEqual(await find(client, { query: 'answers ok', server: 'nope' }), {
      isError: true,
      data: { ok: false, status: 'invalid_call', error: { code: 'invalid_arguments', message: '`server` names no server you may use; servers: fixture' } },
    });
  });

  test('a configured server that is not connected says so', async () => {
    assert.deepEqual(await find(client, { query: 'answers ok', server: 'offline' }), {
      isError: false,
      data: { hits: [], note: OFFLINE_NOTE, servers: [OFFLINE], unavailable_servers: [OFFLINE_STATE] },
    });
  });

  test('an empty query is refused, as the published schema says', async () => {
    const { tools } = await client.listTools();
    const schema = tools.find((t) => t.name === 'find_tool')?.inputSchema as unknown as { properties: { query: { minLength: number } } };
    assert.equal(schema.properties.query.minLength, 1);
    assert.deepEqual(await find(client, { query: '' }), {
      isError: true,
      data: {
        ok: false,
        status: 'invalid_call',
        error: { code: 'invalid_arguments', message: '`query` must be a string of 1..500 characters: what you want to do, in plain words' },
      },
    });
  });
});

describe('find_tool when every backend is down', () => {
  let router: RunningRouter;
  let client: Client;

  before(async () => {
    const offline = httpBackend('offline', `http://127.0.0.1:${await freePort()}/mcp`, { required: false, timeoutMs: 2_000 });
    router = await startRouter(testConfig([offline]));
    client = await router.connect();
  });
  after(async () => router.close());

  test('the empty catalog is explained, with the servers not connected', async () => {
    assert.deepEqual(await find(client, { query: 'read a file' }), {
      isError: false,
      data: { hits: [], note: OFFLINE_NOTE, servers: [OFFLINE], unavailable_servers: [OFFLINE_STATE] },
    });
  });
});

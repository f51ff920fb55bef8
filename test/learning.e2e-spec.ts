import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { waitFor } from './support/backend-processes';
import { SERVER_ENTRIES } from './support/backend-servers';
import { startRedisServer, type RedisServer } from './support/redis-server';
import { startRouterProcess, stdioBackendYaml, type RouterProcess } from './support/router-process';
import { readAsModel, tempDir, type FindAnswer, type SingleAnswer, type ToolResult } from './support/router';

/**
 * `find_tool` learns from use (architecture §1.2), as callers meet it: the real router as its own
 * process with API keys, the real "everything" server as its backend. A request whose words mean
 * nothing to the catalog ("quuxify the blorp") is followed by a call of `get-sum`; once three
 * principals did so, a fourth finds `get-sum` first. One principal doing it twenty times teaches
 * nothing. What was learned survives a restart with `store: file` and is shared by two replicas
 * with `store: redis`.
 */

const REQUEST = 'quuxify the blorp';
const TOOL = 'get-sum';
const PRINCIPALS = ['alice', 'bob', 'carol', 'dave'] as const;
type Who = (typeof PRINCIPALS)[number];
const keyOf = (who: Who) => `key-${who}-${'k'.repeat(32)}`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function configFile(dir: string, store: string[], extra: string[] = []): string {
  const file = join(dir, 'router.yaml');
  writeFileSync(
    file,
    [
      'backends:',
      ...stdioBackendYaml('everything', SERVER_ENTRIES.everything, ['stdio'], { timeoutMs: 15_000 }),
      'auth:',
      '  mode: apiKeys',
      '  apiKeys:',
      ...PRINCIPALS.map((who) => `    - { principal: ${who}, sha256: ${sha256(keyOf(who))}, groups: [users] }`),
      'access:',
      '  - { groups: [users], allow: ["everything:*"] }',
      'discovery:',
      '  learning:',
      '    enabled: true',
      ...store.map((line) => `    ${line}`),
      ...extra,
      `audit: { sink: file, path: ${JSON.stringify(join(dir, 'audit.jsonl'))} }`,
      '',
    ].join('\n'),
  );
  return file;
}

const clients: Client[] = [];
after(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
});

async function connect(router: RouterProcess, who: Who): Promise<Client> {
  const client = new Client({ name: `learning-e2e-${who}`, version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(router.url), { requestInit: { headers: { authorization: `Bearer ${keyOf(who)}` } } }));
  clients.push(client);
  return client;
}

/** The names `find_tool` answers for the request, in rank order, as a model reads them. */
async function found(client: Client): Promise<string[]> {
  const result = (await client.callTool({ name: 'find_tool', arguments: { query: REQUEST, top_k: 5 } })) as ToolResult;
  return readAsModel<FindAnswer>(result)
    .head.hits.filter((h) => h.score > 0)
    .map((h) => h.name);
}

/** The request, then a successful call of the tool: what a principal teaches. */
async function useAfterRequest(client: Client): Promise<void> {
  await found(client);
  const result = (await client.callTool({
    name: 'invoke_read_tool',
    arguments: { name: TOOL, server: 'everything', arguments: { a: 2, b: 3 } },
  })) as ToolResult;
  assert.equal(readAsModel<SingleAnswer>(result).head.status, 'ok');
}

async function metric(router: RouterProcess, name: string): Promise<number> {
  const text = await (await fetch(`${router.base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`centralmcp_router_${name} `) || l.startsWith(`centralmcp_router_${name}{`));
  return line === undefined ? NaN : Number(line.split(' ').pop());
}

describe('learning from use, store: file', () => {
  const dir = tempDir('centralmcp-learning-');
  const learned = join(dir, 'learned.json');
  const file = configFile(dir, ['store: file', `path: ${JSON.stringify(learned)}`]);
  let router: RouterProcess;
  before(async () => {
    router = await startRouterProcess(file);
  });
  after(async () => {
    await router?.stop();
  });

  test('three principals teach a fourth; one principal twenty times teaches nobody', async () => {
    const [alice, bob, carol, dave] = await Promise.all(PRINCIPALS.map((who) => connect(router, who)));
    assert.equal((await found(dave)).includes(TOOL), false, 'the request matches nothing of get-sum before');

    for (let i = 0; i < 20; i += 1) await useAfterRequest(alice);
    assert.equal((await found(dave)).includes(TOOL), false, 'one principal, twenty times');
    await useAfterRequest(bob);
    assert.equal((await found(dave)).includes(TOOL), false, 'two principals');
    await useAfterRequest(carol);
    assert.equal((await found(dave))[0], TOOL, 'three principals: the fourth finds it first');

    assert.equal(await metric(router, 'learning_pairs_total'), 22);
    assert.equal((await metric(router, 'learning_associations')) > 0, true);
    // Normalized words and tool keys only: never the request as written.
    await waitFor(() => readFileSync(learned, 'utf8').includes('blorp'), 10_000, 'the learning file written');
    const stored = readFileSync(learned, 'utf8');
    assert.equal(stored.includes(REQUEST), false);
    assert.equal(stored.includes('alice'), false);
  });

  test('what was learned survives a restart', async () => {
    await router.stop();
    router = await startRouterProcess(file);
    const dave = await connect(router, 'dave');
    assert.equal((await found(dave))[0], TOOL);
  });

  test('learning list shows it; learning reset forgets it, and the running router follows', async () => {
    const listed = cli(file, ['list']);
    assert.equal(listed.code, 0, listed.err);
    assert.match(listed.out, /^blorp -> everything:get-sum {2}principals 3 {2}strength [\d.]+ {2}in use {2}last /m);
    assert.equal(cli(file, ['list', 'nosuch']).out.trim(), 'nothing learned');
    assert.equal(cli(file, ['reset', 'everything:echo']).code, 1);
    assert.equal(cli(file, ['reset', 'not a selector']).code, 2);
    const reset = cli(file, ['reset', 'everything:get-sum']);
    assert.equal(reset.code, 0, reset.err);
    assert.match(reset.out, /^forgot \d+ association/);
    const dave = await connect(router, 'dave');
    assert.equal((await untilFound(dave, (names) => !names.includes(TOOL))).includes(TOOL), false);
  });
});

/** `centralmcp-router learning …` as an operator runs it, against the router's config. */
function cli(file: string, args: string[], env: Record<string, string> = {}): { code: number | null; out: string; err: string } {
  const run = spawnSync(process.execPath, [join(__dirname, '..', 'src', 'cli.js'), 'learning', ...args], {
    env: { PATH: process.env.PATH ?? '', CENTRALMCP_ROUTER_CONFIG: file, ...env },
    encoding: 'utf8',
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

/** Asks until `check` holds of what dave finds, within a generous ceiling: replicas and file watchers take up to a second or two. */
async function untilFound(client: Client, check: (names: string[]) => boolean): Promise<string[]> {
  let names = await found(client);
  for (let tries = 0; tries < 100 && !check(names); tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    names = await found(client);
  }
  return names;
}

describe('learning from use, store: redis shared by two replicas', () => {
  let redis: RedisServer;
  let configPath = '';
  const routers: RouterProcess[] = [];
  before(async () => {
    redis = await startRedisServer();
    const dir = tempDir('centralmcp-learning-redis-');
    const file = configFile(
      dir,
      ['store: redis'],
      ['rateLimit:', '  store: redis', '  redis:', '    url: "${REDIS_URL}"', `    keyPrefix: "e2e-${process.pid}-${randomUUID()}:"`],
    );
    configPath = file;
    routers.push(...(await Promise.all([0, 1].map(() => startRouterProcess(file, { REDIS_URL: redis.url })))));
  });
  after(async () => {
    await Promise.allSettled(routers.map((r) => r.stop()));
    await redis?.stop();
  });

  test('principals teaching on one replica teach the other', async () => {
    const [a, b] = routers;
    await useAfterRequest(await connect(a, 'alice'));
    await useAfterRequest(await connect(b, 'bob'));
    const dave = await connect(b, 'dave');
    assert.equal((await found(dave)).includes(TOOL), false, 'two principals');
    await useAfterRequest(await connect(a, 'carol'));
    // Replicas follow the shared store every second.
    assert.equal((await untilFound(dave, (names) => names[0] === TOOL))[0], TOOL, 'the other replica uses what three principals taught');
  });

  test('learning reset through Redis is followed by every replica', async () => {
    const reset = cli(configPath, ['reset', 'everything'], { REDIS_URL: redis.url });
    assert.equal(reset.code, 0, reset.err);
    for (const router of routers) {
      const dave = await connect(router, 'dave');
      assert.equal((await untilFound(dave, (names) => !names.includes(TOOL))).includes(TOOL), false);
    }
  });
});

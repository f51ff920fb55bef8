import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { until } from './support/backend-processes';
import { SERVER_ENTRIES } from './support/backend-servers';
import { startRedisServer, type RedisServer } from './support/redis-server';
import { startRouterProcess, stdioBackendYaml, type RouterProcess } from './support/router-process';
import { readAsModel, tempDir, type SingleAnswer, type ToolResult } from './support/router';

/**
 * A confirmation token is single use across replicas. Two router processes share one
 * Redis (`rateLimit.store: redis`) and one cursor key, each with its own filesystem server over
 * the same folder, as two pods over one volume. A token used on replica A is refused on replica
 * B and the file is not written again; with Redis gone a confirmed write is refused (fail closed,
 * nothing called) and the same token works once Redis is back.
 */

const CURSOR_SECRET = 'shared-confirmations-' + 's'.repeat(32);

let redis: RedisServer;
const dir = tempDir('centralmcp-shared-confirm-');
const routers: RouterProcess[] = [];
const clients: Client[] = [];

async function invoke(client: Client, args: Record<string, unknown>): Promise<{ isError: boolean; head: SingleAnswer }> {
  const result = (await client.callTool({ name: 'invoke_tool', arguments: args })) as ToolResult;
  return { isError: result.isError === true, head: readAsModel(result).head };
}

before(async () => {
  redis = await startRedisServer();
  const configFile = join(tempDir('centralmcp-shared-confirm-config-'), 'config.yaml');
  writeFileSync(
    configFile,
    [
      'backends:',
      ...stdioBackendYaml('files', SERVER_ENTRIES.filesystem, [dir], { timeoutMs: 15_000 }),
      'writes:',
      '  enabled: true',
      '  allow: ["files:*"]',
      'rateLimit:',
      '  store: redis',
      '  redis:',
      '    url: "${REDIS_URL}"',
      `    keyPrefix: "confirm-e2e-${process.pid}:"`,
      '    connectTimeoutMs: 1000',
      '    commandTimeoutMs: 500',
      '    replicas: 2',
      '',
    ].join('\n'),
  );
  for (let i = 0; i < 2; i++) {
    const router = await startRouterProcess(configFile, { REDIS_URL: redis.url, CENTRALMCP_ROUTER_CURSOR_SECRET: CURSOR_SECRET });
    routers.push(router);
    const client = new Client({ name: `shared-confirm-e2e-${i}`, version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(router.url)));
    clients.push(client);
  }
});
after(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.allSettled(routers.map((r) => r.stop()));
  await redis?.stop();
});

describe('confirmation tokens with two replicas sharing Redis', () => {
  test('a token issued by A and used on A is refused on B; the file is written once', async () => {
    const [a, b] = clients;
    const target = join(dir, 'once.txt');
    const args = { path: target, content: 'first and only' };
    const asked = await invoke(a, { name: 'write_file', arguments: args });
    assert.equal(asked.head.status, 'confirmation_required');
    const token = asked.head.confirmation as string;

    const used = await invoke(a, { name: 'write_file', arguments: args, confirm: token });
    assert.equal(used.head.status, 'ok');
    assert.equal(readFileSync(target, 'utf8'), 'first and only');

    writeFileSync(target, 'changed since');
    const replayed = await invoke(b, { name: 'write_file', arguments: args, confirm: token });
    assert.equal(replayed.isError, true);
    assert.equal(replayed.head.status, 'blocked');
    assert.match(replayed.head.error!.message, /already used/);
    assert.equal(readFileSync(target, 'utf8'), 'changed since', 'the replay on the other replica wrote nothing');
  });

  test('a token issued by A may be used on B, once: A then refuses it', async () => {
    const [a, b] = clients;
    const target = join(dir, 'across.txt');
    const args = { path: target, content: 'confirmed elsewhere' };
    const token = (await invoke(a, { name: 'write_file', arguments: args })).head.confirmation as string;
    const used = await invoke(b, { name: 'write_file', arguments: args, confirm: token });
    assert.equal(used.head.status, 'ok');
    assert.equal(readFileSync(target, 'utf8'), 'confirmed elsewhere');
    const again = await invoke(a, { name: 'write_file', arguments: args, confirm: token });
    assert.equal(again.head.status, 'blocked');
    assert.match(again.head.error!.message, /already used/);
  });

  test('the same token sent to both replicas at once writes exactly once', async () => {
    const [a, b] = clients;
    const target = join(dir, 'race.txt');
    const args = { path: target, content: 'raced' };
    const token = (await invoke(a, { name: 'write_file', arguments: args })).head.confirmation as string;
    const answers = await Promise.all([a, b, a, b].map((client) => invoke(client, { name: 'write_file', arguments: args, confirm: token })));
    assert.deepEqual(answers.map((x) => x.head.status).sort(), ['blocked', 'blocked', 'blocked', 'ok']);
    assert.equal(readFileSync(target, 'utf8'), 'raced');
  });

  test('without Redis a confirmed write fails closed with a retryable error; the same token works once Redis is back', async () => {
    const [a, b] = clients;
    const target = join(dir, 'outage.txt');
    const args = { path: target, content: 'after the outage' };
    const token = (await invoke(a, { name: 'write_file', arguments: args })).head.confirmation as string;

    await redis.kill();
    const refused = await invoke(b, { name: 'write_file', arguments: args, confirm: token });
    assert.equal(refused.isError, true);
    assert.equal(refused.head.status, 'error');
    assert.match(refused.head.error!.message, /used confirmations \(Redis\) is unavailable.*same `confirm` again/);
    assert.equal(existsSync(target), false, 'nothing was called');
    // A write that needs no confirmation does not depend on the record (only on the rate-limit policy).
    const plain = await invoke(b, { name: 'create_directory', arguments: { path: join(dir, 'made-during-outage') } });
    assert.equal(plain.head.status, 'ok');

    await redis.restart();
    // The replica reconnects on its own; until then the answer stays the retryable one.
    let answer = refused;
    await until(
      async () => {
        answer = await invoke(b, { name: 'write_file', arguments: args, confirm: token });
        if (answer.head.status === 'error') assert.match(answer.head.error?.message ?? '', /unavailable/);
        return answer.head.status !== 'error';
      },
      60_000,
      'replica B reconnected to Redis',
    );
    assert.equal(answer.head.status, 'ok');
    assert.equal(readFileSync(target, 'utf8'), 'after the outage');
    let fromA = answer;
    await until(
      async () => (fromA = await invoke(a, { name: 'write_file', arguments: args, confirm: token })).head.status !== 'error',
      60_000,
      'replica A reconnected to Redis',
    );
    assert.equal(fromA.head.status, 'blocked');
    assert.match(fromA.head.error?.message ?? '', /already used/);
  });
});

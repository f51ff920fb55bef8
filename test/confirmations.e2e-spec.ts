import assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { randomBytes } from 'node:crypto';
import { BackendsService } from '../src/backends/backends.service';
import type { RateLimitStoreConfig } from '../src/config/config.types';
import { LifecycleService } from '../src/lifecycle/lifecycle.service';
import { until, waitFor } from './support/backend-processes';
import { SERVER_ENTRIES } from './support/backend-servers';
import { startRedisServer, type RedisServer } from './support/redis-server';
import { killTree } from './support/reaper';
import { spawnRouter, stdioBackendYaml, type SpawnedRouter } from './support/router-process';
import { filesBackend, readAsModel, startRouter, tempDir, testConfig, type RunningRouter, type SingleAnswer, type ToolResult } from './support/router';

/**
 * A confirmation token is used up only when its call is dispatched, and never becomes good again:
 * a refusal on the way (rate limit, backend down, the drain) leaves it usable for the same call; a
 * restart of a router whose record of used tokens lived in its memory does not make a used one
 * valid (nor an unused one: that record died with the process).
 */

async function invoke(client: Client, args: Record<string, unknown>): Promise<SingleAnswer> {
  const result = (await client.callTool({ name: 'invoke_tool', arguments: args })) as ToolResult;
  return readAsModel(result).head;
}

/** Asks for a confirmation of `write_file` and returns the token. */
async function confirmationFor(client: Client, args: Record<string, unknown>): Promise<string> {
  const asked = await invoke(client, { name: 'write_file', arguments: args });
  assert.equal(asked.status, 'confirmation_required');
  return asked.confirmation as string;
}

describe('a confirmed write refused before dispatch keeps its token', () => {
  const routers: RunningRouter[] = [];
  after(async () => {
    await Promise.allSettled(routers.map((r) => r.close()));
  });

  test('rate-limited (burst 1, maxWaitMs 0): the retry with the same token runs the write once', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'other.txt'), 'other');
    // One token every 5 s: the read below takes the only one, so the confirmed write finds none.
    const router = await startRouter(
      testConfig([filesBackend(dir, { env: {} })], {
        writes: { enabled: true, allow: ['files:*'], deny: [] },
        rateLimit: { ratePerSecond: 0.2, burst: 1, maxWaitMs: 0 },
      }),
    );
    routers.push(router);
    const client = await router.connect();
    const target = join(dir, 'limited.txt');
    const args = { path: target, content: 'written once' };
    const token = await confirmationFor(client, args);
    const read = await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'read_text_file', arguments: { path: join(dir, 'other.txt') } } });
    assert.equal(readAsModel(read as ToolResult).head.status, 'ok');

    const limited = await invoke(client, { name: 'write_file', arguments: args, confirm: token });
    assert.equal(limited.status, 'error');
    assert.equal(limited.error?.code, 'rate_limited');
    assert.equal(existsSync(target), false, 'nothing was called');

    // Each retry before the bucket refills is refused the same way, never as "already used".
    let last: SingleAnswer = limited;
    await until(
      async () => {
        last = await invoke(client, { name: 'write_file', arguments: args, confirm: token });
        if (last.status === 'error' && last.error?.code === 'rate_limited') return false;
        return true;
      },
      30_000,
      'a rate-limit token',
    );
    assert.equal(last.status, 'ok', JSON.stringify(last));
    assert.equal(readFileSync(target, 'utf8'), 'written once');

    // Dispatched once: now it is used up.
    writeFileSync(target, 'changed since');
    await until(
      async () => {
        last = await invoke(client, { name: 'write_file', arguments: args, confirm: token });
        return !(last.status === 'error' && last.error?.code === 'rate_limited');
      },
      30_000,
      'a rate-limit token',
    );
    assert.equal(last.status, 'blocked');
    assert.match(last.error?.message ?? '', /already used/);
    assert.equal(readFileSync(target, 'utf8'), 'changed since');
  });

  test('backend down: the call answers backend_unavailable and the same token works once it is back', async () => {
    const dir = tempDir();
    const router = await startRouter(testConfig([filesBackend(dir, { env: {} })], { writes: { enabled: true, allow: ['files:*'], deny: [] } }));
    routers.push(router);
    const client = await router.connect();
    const target = join(dir, 'later.txt');
    const args = { path: target, content: 'written when the backend is back' };
    const token = await confirmationFor(client, args);

    // The server exits at start while its folder is missing: the backend stays down until it is back.
    const backends = router.app.get(BackendsService);
    const files = () => backends.states().find((s) => s.name === 'files');
    const aside = `${dir}-aside`;
    renameSync(dir, aside);
    killTree(files()!.pid!);
    await waitFor(() => files()?.status !== 'up', 15_000, 'files down');
    const down = await invoke(client, { name: 'write_file', arguments: args, confirm: token });
    assert.equal(down.status, 'error');
    assert.equal(down.error?.code, 'backend_unavailable');

    renameSync(aside, dir);
    await waitFor(() => files()?.status === 'up', 30_000, 'files up again');
    const confirmed = await invoke(client, { name: 'write_file', arguments: args, confirm: token });
    assert.equal(confirmed.status, 'ok', JSON.stringify(confirmed));
    assert.equal(readFileSync(target, 'utf8'), 'written when the backend is back');
  });
});

describe('a confirmed write refused by the drain before dispatch (record in Redis)', () => {
  let redis: RedisServer | undefined;
  const routers: RunningRouter[] = [];
  after(async () => {
    await Promise.allSettled(routers.map((r) => r.close()));
    await redis?.stop();
  });

  test('answers "not dispatched" at the drain deadline, and the same token runs the write once on another replica', async () => {
    redis = await startRedisServer();
    const dir = tempDir();
    writeFileSync(join(dir, 'other.txt'), 'other');
    const secret = randomBytes(32);
    const store: RateLimitStoreConfig = {
      kind: 'redis',
      url: redis.url,
      keyPrefix: `drain-confirm-${process.pid}:`,
      connectTimeoutMs: 1000,
      commandTimeoutMs: 500,
      fail: 'closed',
      replicas: 2,
    };
    const writes = { enabled: true, allow: ['files:*'], deny: [] };
    // Replica A: one token every 10 s for its files backend, so the confirmed write waits for one
    // when the drain begins; a drain deadline far shorter than that wait.
    const a = await startRouter(
      testConfig([filesBackend(dir, { env: {}, rateLimit: { ratePerSecond: 0.1, burst: 1, maxWaitMs: 30_000 } })], {
        cursor: { ttlSeconds: 900, secret },
        rateLimitStore: store,
        writes,
        lifecycle: { drainTimeoutMs: 300 },
      }),
    );
    routers.push(a);
    const client = await a.connect();
    const target = join(dir, 'drained.txt');
    const args = { path: target, content: 'written by the other replica' };
    const token = await confirmationFor(client, args);
    const read = await client.callTool({ name: 'invoke_read_tool', arguments: { name: 'read_text_file', arguments: { path: join(dir, 'other.txt') } } });
    assert.equal(readAsModel(read as ToolResult).head.status, 'ok');

    const lifecycle = a.app.get(LifecycleService);
    const waiting = invoke(client, { name: 'write_file', arguments: args, confirm: token });
    await waitFor(() => lifecycle.inFlight === 1, 15_000, 'the confirmed write in flight');
    // What SIGTERM runs (main.ts): the drain, whose deadline passes while the write waits.
    const drained = await lifecycle.drain();
    assert.equal(drained.idle, false);
    const refused = await waiting;
    assert.equal(refused.status, 'error', JSON.stringify(refused));
    assert.equal(refused.error?.code, 'shutting_down');
    assert.equal(refused.error?.message, 'router shutting down: the call was not dispatched');
    assert.equal(existsSync(target), false, 'nothing was called');

    // Replica B shares the Redis record and the cursor key (no rate limit of its own).
    const b = await startRouter(testConfig([filesBackend(dir, { env: {} })], { cursor: { ttlSeconds: 900, secret }, rateLimitStore: store, writes }));
    routers.push(b);
    const other = await b.connect();
    const confirmed = await invoke(other, { name: 'write_file', arguments: args, confirm: token });
    assert.equal(confirmed.status, 'ok', JSON.stringify(confirmed));
    assert.equal(readFileSync(target, 'utf8'), 'written by the other replica');
    const replay = await invoke(other, { name: 'write_file', arguments: args, confirm: token });
    assert.equal(replay.status, 'blocked');
    assert.match(replay.error?.message ?? '', /already used/);
  });
});

describe('a used token after a restart (memory record, same CENTRALMCP_ROUTER_CURSOR_SECRET)', () => {
  const secret = 'restart-confirmations-' + 'k'.repeat(32);
  const dir = tempDir();
  const yaml = [
    'backends:',
    ...stdioBackendYaml('files', SERVER_ENTRIES.filesystem, [dir], { timeoutMs: 15_000 }),
    'writes:',
    '  enabled: true',
    '  allow: ["files:*"]',
    '',
  ].join('\n');
  let running: SpawnedRouter | undefined;
  afterEach(() => running?.kill());

  async function start(): Promise<Client> {
    running = spawnRouter(yaml, { CENTRALMCP_ROUTER_CURSOR_SECRET: secret, CENTRALMCP_ROUTER_LOG_LEVEL: 'info' });
    const url = await running.listening();
    await waitFor(() => running!.logs.some((l) => l.message === 'backends started'), 30_000, 'backends started');
    const client = new Client({ name: 'restart-e2e', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return client;
  }

  async function stop(client: Client): Promise<void> {
    await client.close();
    running!.child.kill('SIGTERM');
    await running!.exited;
  }

  test('is refused by the new process, and the file is not written again', async () => {
    const target = join(dir, 'once.txt');
    const args = { path: target, content: 'first and only write' };
    const first = await start();
    const token = await confirmationFor(first, args);
    const unused = await confirmationFor(first, { path: join(dir, 'never.txt'), content: 'x' });
    assert.equal((await invoke(first, { name: 'write_file', arguments: args, confirm: token })).status, 'ok');
    assert.equal((await invoke(first, { name: 'write_file', arguments: args, confirm: token })).status, 'blocked');
    await stop(first);

    writeFileSync(target, 'changed since');
    const second = await start();
    const replay = await invoke(second, { name: 'write_file', arguments: args, confirm: token });
    assert.equal(replay.status, 'blocked');
    assert.match(replay.error?.message ?? '', /another router process/);
    assert.equal(readFileSync(target, 'utf8'), 'changed since', 'a replay after a restart writes nothing');
    // A token the first process issued and never saw used cannot be vouched for either.
    const stale = await invoke(second, { name: 'write_file', arguments: { path: join(dir, 'never.txt'), content: 'x' }, confirm: unused });
    assert.equal(stale.status, 'blocked');
    assert.equal(existsSync(join(dir, 'never.txt')), false);
    // A new confirmation from the new process works.
    const fresh = await confirmationFor(second, args);
    assert.equal((await invoke(second, { name: 'write_file', arguments: args, confirm: fresh })).status, 'ok');
    assert.equal(readFileSync(target, 'utf8'), 'first and only write');
    await stop(second);
  });
});

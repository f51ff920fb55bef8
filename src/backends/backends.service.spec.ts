import 'reflect-metadata';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Logger } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { isAlive, livingInGroup, waitFor } from '../../test/support/backend-processes';
import {
  backendsConfigModule,
  freePort,
  httpBackend,
  SERVER_ENTRIES,
  startEverythingHttp,
  stdioBackend,
  stopProcess,
} from '../../test/support/backend-servers';
import { RouterError, type RouterErrorCode } from '../common/router-error';
import { RegistryService } from '../registry/registry.service';
import { BackendsModule } from './backends.module';
import { BackendsService } from './backends.service';
import type { BackendState, BackendToolResult } from './backends.types';

Logger.overrideLogger(['error', 'warn']);

function textOf(result: BackendToolResult): string {
  const block = result.content[0];
  return block?.type === 'text' ? block.text : '';
}

/**
 * Rejects with `code`. A failure that comes at once is known by its code (backend_unavailable,
 * backend_failed), one at the deadline by backend_timeout: no stopwatch needed.
 */
async function rejectsWith(promise: Promise<unknown>, code: RouterErrorCode): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof RouterError, `not a RouterError: ${String(err)}`);
    assert.equal(err.code, code, err.message);
    return true;
  });
}

describe('BackendsService against real MCP servers', () => {
  let dir: string;
  let httpPort: number;
  let httpServer: ChildProcess;
  let sseServer: ChildProcess;
  let moduleRef: TestingModule;
  let backends: BackendsService;
  let registry: RegistryService;
  /** Every stdio process group we saw, so the shutdown test can prove none survives. */
  const groups = new Set<number>();

  const state = (name: string): BackendState => {
    const found = backends.states().find((s) => s.name === name);
    assert.ok(found, `no backend ${name}`);
    if (found.pid !== undefined) groups.add(found.pid);
    return found;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'backends-spec-'));
    await writeFile(join(dir, 'hello.txt'), 'hello from files\n');
    httpPort = await freePort();
    const ssePort = await freePort();
    [httpServer, sseServer] = await Promise.all([startEverythingHttp(httpPort), startEverythingHttp(ssePort, 'sse')]);
    moduleRef = await Test.createTestingModule({
      imports: [
        backendsConfigModule([
          stdioBackend('files', SERVER_ENTRIES.filesystem, [dir]),
          stdioBackend('slow', SERVER_ENTRIES.everything, ['stdio']),
          stdioBackend('fixture', SERVER_ENTRIES.fixture, [], { env: { FIXTURE_TOKEN: 'x' } }),
          httpBackend('everything', `http://127.0.0.1:${httpPort}/mcp`),
          // The same server with a tight call timeout, for the timeout test.
          httpBackend('tight', `http://127.0.0.1:${httpPort}/mcp`, { timeoutMs: 2000 }),
          httpBackend('legacy', `http://127.0.0.1:${ssePort}/sse`, { transport: 'sse' }),
          httpBackend('gone', `http://127.0.0.1:${await freePort()}/mcp`, { required: false }),
        ]),
        BackendsModule,
      ],
    }).compile();
    await moduleRef.init();
    backends = moduleRef.get(BackendsService);
    await backends.start();
    registry = moduleRef.get(RegistryService);
  });

  after(async () => {
    await moduleRef?.close(); // idempotent if the shutdown test already closed it
    await Promise.all([httpServer && stopProcess(httpServer), sseServer && stopProcess(sseServer)]);
    await rm(dir, { recursive: true, force: true });
  });

  test('boot connects every reachable backend and loads its catalog into the registry', () => {
    for (const name of ['files', 'slow', 'fixture', 'everything', 'legacy']) {
      assert.equal(state(name).status, 'up', name);
    }
    assert.ok(state('files').tools >= 10);
    assert.equal(registry.sizes().get('files'), state('files').tools);
    const readFile = registry.resolve('read_text_file', 'files');
    assert.equal(readFile.kind, 'found');
    // The fixture lists its 8 tools over two pages.
    assert.equal(registry.sizes().get('fixture'), 8);
  });

  test('a stdio call returns the backend result untouched', async () => {
    const result = await backends.callTool('files', 'read_text_file', { path: join(dir, 'hello.txt') });
    assert.equal(textOf(result), 'hello from files\n');
    assert.notEqual(result.isError, true);
  });

  test('Streamable HTTP and legacy SSE backends serve calls', async () => {
    const sum = await backends.callTool('everything', 'get-sum', { a: 2, b: 3 });
    assert.match(textOf(sum), /5/);
    const echo = await backends.callTool('legacy', 'echo', { message: 'hi' });
    assert.match(textOf(echo), /hi/);
  });

  test('a stdio child gets PATH, HOME and its configured env, nothing else', async () => {
    const keys = JSON.parse(textOf(await backends.callTool('fixture', 'env', {}))) as string[];
    const expected = ['FIXTURE_TOKEN', 'PATH', ...(process.env.HOME === undefined ? [] : ['HOME'])].sort();
    assert.deepEqual(keys, expected);
  });

  test('a response over the 8 MiB line cap fails that call with response_too_large, the backend stays up', async () => {
    await rejectsWith(backends.callTool('fixture', 'big', { bytes: 9 * 1024 * 1024 }), 'response_too_large');
    assert.equal(state('fixture').status, 'up');
    assert.equal(textOf(await backends.callTool('fixture', 'small', {})), 'ok');
  });

  test('an unknown or unreachable backend fails at once with backend_unavailable', async () => {
    await rejectsWith(backends.callTool('nope', 'x', {}), 'backend_unavailable');
    const gone = state('gone');
    assert.equal(gone.status, 'down');
    assert.ok(gone.lastError);
    await rejectsWith(backends.callTool('gone', 'x', {}), 'backend_unavailable');
  });

  test('a call over the timeout fails with backend_timeout while others on the backend succeed', async () => {
    // Its boot attempt had only 2 s too; on a loaded machine it may have come up on a retry.
    await waitFor(() => state('tight').status === 'up', 60_000, 'tight up');
    const started = performance.now();
    const [slowCall, quick] = await Promise.allSettled([
      rejectsWith(backends.callTool('tight', 'trigger-long-running-operation', { duration: 10, steps: 1 }), 'backend_timeout'),
      backends.callTool('tight', 'get-sum', { a: 1, b: 1 }),
    ]);
    assert.equal(slowCall.status, 'fulfilled', String((slowCall as PromiseRejectedResult).reason));
    // The deadline (2 s) is kept, measured from the call with a margin of five: a 10 s operation.
    assert.ok(performance.now() - started < 5 * 2000, 'timed out at timeoutMs');
    assert.equal(quick.status, 'fulfilled');
    assert.equal(state('tight').status, 'up');
  });

  test('a tools/list_changed notification refreshes the catalog', async () => {
    await backends.callTool('fixture', 'add_tool', {});
    await waitFor(() => registry.sizes().get('fixture') === 9, 60_000, 'catalog refreshed');
    assert.equal(state('fixture').tools, 9);
  });

  test('a killed stdio backend fails calls in flight at once, keeps its tools and is restarted', async () => {
    const before = state('slow');
    const inFlight = backends.callTool('slow', 'trigger-long-running-operation', { duration: 20, steps: 1 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(-before.pid!, 'SIGKILL');
    await rejectsWith(inFlight, 'backend_failed');
    await rejectsWith(backends.callTool('slow', 'get-sum', { a: 1, b: 2 }), 'backend_unavailable');
    assert.equal(state('slow').status, 'down');
    assert.equal(registry.sizes().get('slow'), before.tools, 'the registry keeps the last tools');
    await waitFor(() => state('slow').status === 'up', 60_000, 'slow back up');
    const after = state('slow');
    assert.ok(after.restarts >= 1);
    assert.notEqual(after.pid, before.pid);
    assert.match(textOf(await backends.callTool('slow', 'get-sum', { a: 1, b: 2 })), /3/);
  });

  test('the filesystem backend is restarted after its process group is killed', async () => {
    const pid = state('files').pid!;
    process.kill(-pid, 'SIGKILL');
    await waitFor(() => state('files').status !== 'up', 60_000, 'files marked down');
    await rejectsWith(backends.callTool('files', 'read_text_file', { path: join(dir, 'hello.txt') }), 'backend_unavailable');
    await waitFor(() => state('files').status === 'up', 60_000, 'files back up');
    assert.ok(state('files').restarts >= 1);
    const result = await backends.callTool('files', 'read_text_file', { path: join(dir, 'hello.txt') });
    assert.equal(textOf(result), 'hello from files\n');
  });

  test('an HTTP backend that goes away is marked down, fails fast and reconnects when it is back', async () => {
    await stopProcess(httpServer);
    // A stream break alone is only a suspicion; a call to a refused port settles it.
    await backends.callTool('everything', 'get-sum', { a: 1, b: 1 }).catch(() => undefined);
    await waitFor(() => state('everything').status === 'down', 60_000, 'everything marked down');
    await rejectsWith(backends.callTool('everything', 'get-sum', { a: 1, b: 1 }), 'backend_unavailable');
    httpServer = await startEverythingHttp(httpPort);
    await waitFor(() => state('everything').status === 'up', 60_000, 'everything back up');
    assert.ok(state('everything').restarts >= 1);
    assert.match(textOf(await backends.callTool('everything', 'get-sum', { a: 4, b: 4 })), /8/);
  });

  test('after close no process of ours is alive', async () => {
    const grandchild = Number(textOf(await backends.callTool('fixture', 'grandchild', {})));
    for (const name of ['files', 'slow', 'fixture']) state(name); // record the current groups
    assert.ok(isAlive(grandchild));
    await moduleRef.close();
    for (const pgid of groups) {
      await waitFor(() => livingInGroup(pgid).length === 0, 60_000, `process group ${pgid} gone`);
    }
    assert.equal(isAlive(grandchild), false);
    await rejectsWith(backends.callTool('files', 'read_text_file', { path: join(dir, 'hello.txt') }), 'backend_unavailable');
  });
});

import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { isAlive, livingInGroup, until, waitFor } from './support/backend-processes';
import { childrenOf, FAULT_SERVER, readCounts } from './support/fault-backends';
import { msgOf, spawnRouter, stdioBackendYaml, type SpawnedRouter } from './support/router-process';
import { BUILD, ROOT, tempDir, type AnswerOf } from './support/router';

/**
 * The router as an operator runs it: the built `main.js` in its own process, real signals, real
 * backends. The drain deadline is kept; the router listens before its backends connect and says
 * plainly when it cannot listen.
 */

const started: SpawnedRouter[] = [];
after(() => {
  for (const router of started) router.kill();
});

/** A tools/call over plain HTTP; resolves with the tool's structured content. */
async function callTool<N extends keyof AnswerOf>(mcpUrl: string, name: N, args: Record<string, unknown>): Promise<AnswerOf[N]> {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  assert.equal(response.status, 200);
  const body = (await response.json()) as { result: { structuredContent: AnswerOf[N] } };
  return body.result.structuredContent;
}

/** An answer's error text, whether the answer carries it as a string or as `{code, message}`. */
function errorText(error: unknown): string {
  return typeof error === 'string' ? error : String((error as { message?: unknown } | undefined)?.message);
}

describe('drain deadline', () => {
  test(
    'at the deadline: nothing more is dispatched, calls in flight answer at once, every request gets one answer, backends die, exit 0',
    { timeout: 300_000 },
    async () => {
      const dir = tempDir('centralmcp-drain-');
      const counts = join(dir, 'slow.counts');
      const router = spawnRouter(
        ['backends:', ...stdioBackendYaml('slow', FAULT_SERVER, ['--name', 'slow', '--count-file', counts], { timeoutMs: 120_000 }), ''].join('\n'),
        { CENTRALMCP_ROUTER_DRAIN_TIMEOUT_MS: '1500' },
      );
      started.push(router);
      const mcpUrl = await router.listening();
      await waitFor(() => childrenOf(router.child.pid!).length === 1, 60_000, 'backend started');
      const groups = childrenOf(router.child.pid!);
      await waitFor(() => (readCounts(counts)['tools/list'] ?? 0) >= 1, 60_000, 'catalog listed');

      // Each of these would take a minute; the drain deadline is 1.5 s.
      const batch = callTool(mcpUrl, 'invoke_read_tool_batch', {
        calls: [
          { name: 'sleep', server: 'slow', arguments: { ms: 60_000 } },
          { name: 'sleep', server: 'slow', arguments: { ms: 60_000 } },
          { name: 'fast', server: 'slow' },
        ],
      });
      const single = callTool(mcpUrl, 'invoke_read_tool', { name: 'sleep', server: 'slow', arguments: { ms: 60_000 } });
      await waitFor(() => (readCounts(counts)['tools/call:sleep'] ?? 0) === 2, 60_000, 'both calls reached the backend');
      router.child.kill('SIGTERM');

      const [batchAnswer, singleAnswer] = await Promise.all([batch, single]);
      assert.equal(singleAnswer.status, 'error');
      assert.deepEqual(singleAnswer.error, { code: 'shutting_down', message: 'router shutting down: the call was stopped at the drain deadline' });
      assert.equal(batchAnswer.ok, false);
      const results = batchAnswer.results as { status: string; error?: unknown }[];
      assert.deepEqual(
        results.map((r) => r.status),
        ['error', 'error', 'error'],
      );
      assert.match(errorText(results[0].error), /stopped at the drain deadline/);
      assert.match(errorText(results[1].error), /not dispatched/);
      assert.match(errorText(results[2].error), /not dispatched/);

      const [code, signal] = await router.exited;
      assert.deepEqual({ code, signal }, { code: 0, signal: null }, router.other());
      assert.deepEqual(readCounts(counts)['tools/call:sleep'], 2, 'the second batch entry never reached the backend');
      assert.equal(readCounts(counts)['tools/call:fast'], undefined);
      await waitFor(() => groups.every((group) => livingInGroup(group).length === 0), 60_000, 'every backend process group gone');
      const messages = router.logs.map(msgOf);
      for (const expected of ['drain deadline passed: stopping the calls in flight', 'drained: stopped calls answered', 'stopped']) {
        assert.ok(messages.includes(expected), `${expected} in ${JSON.stringify(messages)}`);
      }
    },
  );
});

describe('boot', () => {
  test(
    'the router listens before its backends connect: live at once, ready once the required backend is up, an optional one that never answers holds nothing',
    { timeout: 300_000 },
    async () => {
      const router = spawnRouter(
        [
          'backends:',
          ...stdioBackendYaml('fast', FAULT_SERVER, ['--name', 'fast']),
          // Reads its input and never answers `initialize`.
          ...stdioBackendYaml('mute', '-e', ['process.stdin.resume()'], { required: false, timeoutMs: 600_000 }),
          '',
        ].join('\n'),
      );
      started.push(router);
      const base = (await router.listening()).replace(/\/mcp$/, '');
      assert.equal((await fetch(`${base}/health/live`)).status, 200);
      // Readiness waits for the required backend only; meanwhile the mute one is still connecting
      // (its first attempt lasts its 10-minute timeout).
      await until(async () => (await fetch(`${base}/health/ready`)).status === 200, 60_000, 'ready');
      const ready = await fetch(`${base}/health/ready`);
      const body = (await ready.json()) as { info: Record<string, { state?: string }> };
      assert.equal(ready.status, 200, JSON.stringify(body));
      assert.equal(body.info['backend:fast'].state, 'up');
      assert.equal(body.info['backend:mute'].state, 'connecting', 'the optional backend is still within its first attempt');
      assert.equal((await fetch(`${base}/health/live`)).status, 200);
      router.child.kill('SIGTERM');
      const [code] = await router.exited;
      assert.equal(code, 0, router.other());
    },
  );

  test('a port already in use: one JSON line naming the address, exit 78, no backend spawned', { timeout: 300_000 }, async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const counts = join(tempDir('centralmcp-port-'), 'never.counts');
      const router = spawnRouter(['backends:', ...stdioBackendYaml('never', FAULT_SERVER, ['--name', 'never', '--count-file', counts]), ''].join('\n'), {
        CENTRALMCP_ROUTER_PORT: String(port),
      });
      started.push(router);
      const [code] = await router.exited;
      assert.equal(code, 78);
      const lines = router.other().trim().split('\n');
      assert.equal(lines.length, 1, router.other());
      const line = JSON.parse(lines[0]) as { level: string; message: string; code: string };
      assert.equal(line.level, 'fatal');
      assert.equal(line.code, 'EADDRINUSE');
      assert.match(line.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
      assert.deepEqual(readCounts(counts), {}, 'no backend was started');
      assert.equal(router.logs.filter((l) => l.level === 'error').length, 0, JSON.stringify(router.logs));
    } finally {
      blocker.close();
    }
  });
});

describe('npm start', () => {
  /** A folder whose `npm start` is the repository's own script, run on the tests' build. */
  function npmStartFolder(): string {
    // What npm does with the signal is under test, and `npm start` in the repository would rebuild
    // (`prestart`) and run the production build in dist/, which tests leave alone.
    const pkgDir = tempDir('centralmcp-npm-start-');
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
    writeFileSync(join(pkgDir, 'package.json'), JSON.stringify({ name: 'npm-start-e2e', private: true, scripts: { start: scripts.start } }));
    symlinkSync(BUILD, join(pkgDir, 'dist'));
    return pkgDir;
  }

  test("Ctrl-C: the terminal's SIGINT and the one npm forwards are one request to stop: the batch in flight completes", { timeout: 300_000 }, async () => {
    const dir = tempDir();
    const counts = join(dir, 'held.counts');
    const release = join(dir, 'release');
    // Its own process group, as a terminal's foreground job: Ctrl-C signals npm and the router alike.
    const router = spawnRouter(
      ['backends:', ...stdioBackendYaml('held', FAULT_SERVER, ['--name', 'held', '--count-file', counts]), ''].join('\n'),
      { CENTRALMCP_ROUTER_DRAIN_TIMEOUT_MS: '120000' },
      { file: 'npm', args: ['start', '--silent'], cwd: npmStartFolder(), detached: true },
    );
    started.push(router);
    const url = await router.listening();
    await waitFor(() => router.logs.some((l) => msgOf(l) === 'backends started'), 60_000, 'backends started');
    const batch = callTool(url, 'invoke_read_tool_batch', {
      calls: [
        { name: 'wait_for_file', server: 'held', arguments: { path: release } },
        { name: 'fast', server: 'held' },
      ],
    });
    await waitFor(() => (readCounts(counts)['tools/call:wait_for_file'] ?? 0) === 1, 60_000, 'the call reached the backend');

    // Ctrl-C reaches the router and npm from the terminal, and npm forwards its own. Sent here in
    // that order, the second once the first was handled: sent to the group at once, the two SIGINTs
    // can both reach a router not yet scheduled and merge into one (the kernel does not queue a
    // signal already pending), and the forwarded one this test is about would never arrive.
    const children = childrenOf(router.child.pid!);
    assert.equal(children.length, 1, 'npm runs the router as its one child');
    process.kill(children[0], 'SIGINT');
    await waitFor(() => router.logs.some((l) => msgOf(l) === 'shutting down'), 60_000, "the terminal's signal handled");
    process.kill(router.child.pid!, 'SIGINT');
    // npm forwards the SIGINT it got to the router, which got its own from the terminal already.
    await waitFor(
      () => router.logs.some((l) => msgOf(l) === 'signal joins the shutdown under way') || router.child.exitCode !== null,
      60_000,
      'the second signal handled',
    );
    assert.ok(!router.logs.some((l) => msgOf(l) === 'second signal: exiting now'), 'the router did not exit at once');
    writeFileSync(release, '');
    const answer = await batch;
    assert.deepEqual(
      answer.results.map((r) => r.status),
      ['ok', 'ok'],
      JSON.stringify(answer.results),
    );
    const [code] = await router.exited;
    assert.ok(
      router.logs.some((l) => msgOf(l) === 'stopped'),
      'the router drained and stopped',
    );
    assert.equal(code, 0, router.other());
  });

  test('SIGTERM to the npm process reaches the router: it drains and exits, and its backends with it', { timeout: 300_000 }, async () => {
    const pkgDir = npmStartFolder();
    const router = spawnRouter(
      ['backends:', ...stdioBackendYaml('fast', FAULT_SERVER, ['--name', 'fast']), ''].join('\n'),
      {},
      { file: 'npm', args: ['start', '--silent'], cwd: pkgDir },
    );
    started.push(router);
    await router.listening();
    const routerPid = router.logs.find((l) => msgOf(l) === 'router listening')!.pid as number;
    assert.notEqual(routerPid, router.child.pid, 'npm runs the router as a child');
    await waitFor(() => childrenOf(routerPid).length === 1, 60_000, 'backend started');
    const groups = childrenOf(routerPid);
    router.child.kill('SIGTERM');
    try {
      await waitFor(() => !isAlive(routerPid), 60_000, 'the router exited');
    } finally {
      if (isAlive(routerPid)) process.kill(routerPid, 'SIGKILL');
    }
    assert.ok(
      router.logs.some((l) => msgOf(l) === 'stopped'),
      'the router shut down cleanly',
    );
    await waitFor(() => groups.every((group) => livingInGroup(group).length === 0), 60_000, 'every backend process group gone');
  });
});

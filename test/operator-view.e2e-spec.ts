import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BackendsService } from '../src/backends/backends.service';
import { waitFor } from './support/backend-processes';
import { faultStdioBackend, RawMcpClient } from './support/fault-backends';
import { startRouter, testConfig, type RunningRouter } from './support/router';

/**
 * What an operator reads (issue 12): the log says why a backend call failed, once per backend and
 * reason in a window, and never with argument values; a stdio command that cannot run is named
 * once with its OS error.
 */

const CANARY = 'CANARY-arg-5e1d';

/** The router's JSON log lines written to stdout while a test runs (kept out of the test output). */
function captureLogs(): { lines: () => Record<string, any>[]; stop: () => void } {
  const lines: string[] = [];
  const realWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (text.startsWith('{"level"')) {
      lines.push(text);
      return true;
    }
    return (realWrite as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  return {
    lines: () => lines.flatMap((l) => l.split('\n')).filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, any>),
    stop: () => {
      process.stdout.write = realWrite;
    },
  };
}

describe('operator view: failed backend calls', () => {
  let router: RunningRouter;
  let client: RawMcpClient;
  let logs: ReturnType<typeof captureLogs>;

  before(async () => {
    logs = captureLogs();
    router = await startRouter(testConfig([faultStdioBackend('flaky', {}, { timeoutMs: 1000 })], { logLevel: 'warn' }));
    client = new RawMcpClient(router.url);
  });
  after(async () => {
    client?.close();
    await router?.close();
    logs.stop();
  });

  const failures = () => logs.lines().filter((l) => l.message?.msg === 'backend call failed');

  test('each failed call is logged at warn with backend, tool, code, reason, duration and request id; repeats are throttled', async () => {
    for (let i = 0; i < 4; i++) {
      assert.equal((await client.read('fail', 'flaky', { note: CANARY })).status, 'error');
    }
    assert.equal((await client.read('hang', 'flaky', { note: CANARY })).status, 'error');
    const lines = failures();
    assert.deepEqual(
      lines.map((l) => [l.level, l.message.backend, l.message.tool, l.message.code]),
      [
        ['warn', 'flaky', 'fail', 'backend_failed'],
        ['warn', 'flaky', 'hang', 'backend_timeout'],
      ],
      'one line per backend and reason in the window',
    );
    assert.equal(lines[0].message.error, 'the tool answered isError: true');
    assert.match(lines[1].message.error, /did not answer within 1000 ms/);
    for (const line of lines) {
      assert.equal(typeof line.message.durationMs, 'number');
      assert.equal(typeof line.requestId, 'string');
    }
    assert.equal(JSON.stringify(logs.lines()).includes(CANARY), false, 'argument values never reach the log');
  });
});

describe('operator view: a stdio command that does not exist', () => {
  let router: RunningRouter;
  let logs: ReturnType<typeof captureLogs>;

  before(async () => {
    logs = captureLogs();
    const missing = { ...faultStdioBackend('typo', {}, { required: false }), command: 'centralmcp-no-such-command' };
    router = await startRouter(testConfig([missing], { logLevel: 'warn' }));
  });
  after(async () => {
    await router?.close();
    logs.stop();
  });

  test('names the command and the OS error once, at warn, however often supervision retries', async () => {
    const backends = router.app.get(BackendsService);
    const state = () => backends.states().find((s) => s.name === 'typo')!;
    await waitFor(() => state().restarts >= 2, 15_000, 'three attempts');
    const failed = logs.lines().filter((l) => l.level === 'warn' && l.message?.backend === 'typo');
    assert.deepEqual(failed.map((l) => l.message.msg), ['backend connect failed'], JSON.stringify(failed));
    assert.equal(failed[0].message.error, 'cannot run command "centralmcp-no-such-command": ENOENT (no such file, or not on PATH)');
    assert.equal(state().lastError, failed[0].message.error);
  });
});

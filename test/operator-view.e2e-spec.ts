import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { BackendsService } from '../src/backends/backends.service';
import { waitFor } from './support/backend-processes';
import { faultHttpBackend, faultStdioBackend, RawMcpClient, startFaultHttp, type FaultHttpServer } from './support/fault-backends';
import { captureLogs } from './support/logs';
import { startRouter, testConfig, type RunningRouter } from './support/router';

/**
 * What an operator reads: the log says why a backend call failed, once per backend and
 * reason in a window, and never with argument values; a stdio command that cannot run is named
 * once with its OS error; log lines have one shape, and work a call set off does not carry its id.
 */

const CANARY = 'CANARY-arg-5e1d';

describe('operator view: failed backend calls', () => {
  let router: RunningRouter;
  let client: RawMcpClient;
  let logs: ReturnType<typeof captureLogs>;

  before(async () => {
    logs = captureLogs();
    // A deadline a loaded box keeps with room to spare, for the connect as for the calls.
    router = await startRouter(testConfig([faultStdioBackend('flaky', {}, { timeoutMs: 5000 })], { logLevel: 'warn' }));
    client = new RawMcpClient(router.url);
  });
  after(async () => {
    client?.close();
    await router?.close();
    logs.stop();
  });

  const failures = () => logs.lines().filter((l) => l.message === 'backend call failed');

  test('each failed call is logged at warn with backend, tool, code, reason, duration and request id; repeats are throttled', async () => {
    for (let i = 0; i < 4; i++) {
      assert.equal((await client.read('fail', 'flaky', { note: CANARY })).status, 'error');
    }
    assert.equal((await client.read('hang', 'flaky', { note: CANARY })).status, 'error');
    const lines = failures();
    assert.deepEqual(
      lines.map((l) => [l.level, l.backend, l.tool, l.code]),
      [
        ['warn', 'flaky', 'fail', 'backend_failed'],
        ['warn', 'flaky', 'hang', 'backend_timeout'],
      ],
      'one line per backend and reason in the window',
    );
    assert.equal(lines[0].error, 'the tool answered isError: true');
    assert.match(String(lines[1].error), /did not answer within 5000 ms/);
    for (const line of lines) {
      assert.equal(typeof line.durationMs, 'number');
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
    await waitFor(() => state().restarts >= 2, 60_000, 'three attempts');
    const failed = logs.lines().filter((l) => l.level === 'warn' && l.backend === 'typo');
    assert.deepEqual(
      failed.map((l) => l.message),
      ['backend connect failed'],
      JSON.stringify(failed),
    );
    assert.equal(failed[0].error, 'cannot run command "centralmcp-no-such-command": ENOENT (no such file, or not on PATH)');
    assert.equal(state().lastError, failed[0].error);
  });
});

describe('operator view: log lines', () => {
  let crashy: FaultHttpServer;
  let router: RunningRouter;
  let client: RawMcpClient;
  let logs: ReturnType<typeof captureLogs>;

  before(async () => {
    crashy = await startFaultHttp('crashy');
    logs = captureLogs();
    router = await startRouter(testConfig([faultHttpBackend('crashy', crashy, { timeoutMs: 2000 })], { logLevel: 'info' }));
    client = new RawMcpClient(router.url);
  });
  after(async () => {
    client?.close();
    await router?.close();
    logs.stop();
    await crashy?.stop();
  });

  test("a reconnect a call set off does not carry that call's request id", async () => {
    const backends = router.app.get(BackendsService);
    const state = () => backends.states().find((s) => s.name === 'crashy')!;
    const reply = await client.post(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'invoke_read_tool', arguments: { name: 'crash', server: 'crashy' } } }),
      { 'x-request-id': 'the-crashing-call' },
    );
    assert.equal(reply.status, 200);
    await waitFor(() => state().status === 'down', 60_000, 'backend seen down');
    await crashy.restart();
    await waitFor(() => state().status === 'up', 60_000, 'backend back up');
    const afterwards = logs
      .lines()
      .filter((l) => ['backend reconnect scheduled', 'backend connect failed', 'backend up', 'backend crash-looping'].includes(String(l.message)));
    assert.ok(
      afterwards.some((l) => l.message === 'backend up'),
      JSON.stringify(afterwards),
    );
    assert.deepEqual(
      afterwards.filter((l) => l.requestId !== undefined),
      [],
      'no line of the reconnect carries a request id',
    );
  });

  test('every line: level by name, ISO time, pid, hostname, context, message a string; no start-up chatter at info', () => {
    const lines = logs.lines();
    assert.ok(lines.length > 0);
    for (const line of lines) {
      assert.ok(['fatal', 'error', 'warn', 'info'].includes(line.level), JSON.stringify(line));
      assert.match(String(line.time), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.equal(line.pid, process.pid);
      assert.equal(typeof line.hostname, 'string');
      assert.equal(typeof line.context, 'string');
      assert.equal(typeof line.message, 'string', JSON.stringify(line));
    }
    const chatter = lines.filter((l) => ['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication'].includes(l.context ?? ''));
    assert.deepEqual(chatter, []);
  });
});

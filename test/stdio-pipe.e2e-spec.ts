import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { syntheticTools } from './fixtures/synthetic-tools';
import { waitFor } from './support/backend-processes';
import { faultStdioBackend, RawMcpClient, readCounts } from './support/fault-backends';
import { startRouter, tempDir, testConfig, type RunningRouter, backendState } from './support/router';

/**
 * Many callers on one stdio backend at once. The router sends the requests of one turn of its
 * event loop down the pipe in one write (architecture §15); what a caller sees must
 * not change: every call reaches the backend once and gets its own answer, and a backend that
 * exits with calls in flight answers each of them once, at once, with `error`.
 */
describe('one stdio pipe, many callers at once', () => {
  const dir = tempDir('centralmcp-pipe-');
  const countFile = (name: string) => join(dir, `${name}.counts`);
  /** The deadline of both backends: a call left to it would hold its test a minute. */
  const TIMEOUT_MS = 60_000;
  const SYNTHETIC = 40;
  const names = syntheticTools(SYNTHETIC)
    .filter((t) => t.annotations?.readOnlyHint === true)
    .slice(0, 16)
    .map((t) => t.name);
  let router: RunningRouter;
  let client: RawMcpClient;

  const state = (name: string) => backendState(router, name);

  before(async () => {
    router = await startRouter(
      testConfig([
        faultStdioBackend('piped', { tools: SYNTHETIC, countFile: countFile('piped') }, { timeoutMs: TIMEOUT_MS }),
        faultStdioBackend('crashy', { countFile: countFile('crashy') }, { timeoutMs: TIMEOUT_MS }),
      ]),
    );
    client = new RawMcpClient(router.url);
  });

  after(async () => {
    client?.close();
    await router?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('calls sent at once each reach the backend once and get their own answer', async () => {
    assert.equal(names.length, 16);
    const calls = [...names, ...names];
    const answers = await Promise.all(calls.map((name) => client.read(name, 'piped')));
    answers.forEach((answer, i) => {
      assert.equal(answer.status, 'ok', answer.error?.message);
      assert.equal(answer.tool, calls[i]);
      // Each synthetic tool answers with its own name: an answer matched to another call shows.
      assert.equal(answer.result?.content?.[0]?.text, `${calls[i]} ok`);
    });
    const counts = readCounts(countFile('piped'));
    for (const name of names) assert.equal(counts[`tools/call:${name}`], 2, name);
  });

  test('a backend that exits with calls in flight answers each of them once, at once, with error', async () => {
    const sleepers = Array.from({ length: 12 }, () => client.read('sleep', 'crashy', { ms: TIMEOUT_MS * 2 }));
    // Every sleeper is at the backend before it is made to exit.
    await waitFor(() => (readCounts(countFile('crashy'))['tools/call:sleep'] ?? 0) === sleepers.length, 60_000, 'every sleeper at the backend');
    const crash = client.read('crash', 'crashy');
    for (const answer of await Promise.all([...sleepers, crash])) {
      assert.equal(answer.status, 'error');
      assert.equal(answer.result, undefined, 'never both result and error');
      // Failed when the backend went, not at the deadline a minute on.
      assert.notEqual(answer.error?.code, 'backend_timeout', answer.error?.message);
    }
    await waitFor(() => state('crashy').status === 'up', 60_000, 'crashy back up');
    assert.equal((await client.read('fast', 'crashy')).status, 'ok');
  });
});

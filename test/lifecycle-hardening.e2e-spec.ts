import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { livingInGroup, waitFor } from './support/backend-processes';
import { childrenOf, FAULT_SERVER, readCounts } from './support/fault-backends';
import { msgOf, spawnRouter, stdioBackendYaml, type RouterProcess } from './support/router-process';
import { tempDir } from './support/router';

/**
 * The router as an operator runs it (issue 12): the built `main.js` in its own process, real
 * signals, real backends. The drain deadline is kept (item 3).
 */

const started: RouterProcess[] = [];
after(() => {
  for (const router of started) router.kill();
});

/** A tools/call over plain HTTP; resolves with the tool's structured content. */
async function callTool(mcpUrl: string, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  assert.equal(response.status, 200);
  const body = (await response.json()) as { result: { structuredContent: Record<string, any> } };
  return body.result.structuredContent;
}

describe('drain deadline', () => {
  test('at the deadline: nothing more is dispatched, calls in flight answer at once, every request gets one answer, backends die, exit 0', { timeout: 90_000 }, async () => {
    const dir = tempDir('centralmcp-drain-');
    const counts = join(dir, 'slow.counts');
    const router = spawnRouter(
      ['backends:', ...stdioBackendYaml('slow', FAULT_SERVER, ['--name', 'slow', '--count-file', counts], { timeoutMs: 120_000 }), ''].join('\n'),
      { CENTRALMCP_ROUTER_DRAIN_TIMEOUT_MS: '1500' },
    );
    started.push(router);
    const mcpUrl = await router.listening();
    await waitFor(() => childrenOf(router.child.pid!).length === 1, 10_000, 'backend started');
    const groups = childrenOf(router.child.pid!);
    await waitFor(() => (readCounts(counts)['tools/list'] ?? 0) >= 1, 10_000, 'catalog listed');

    // Each of these would take a minute; the drain deadline is 1.5 s.
    const batch = callTool(mcpUrl, 'invoke_read_tool_batch', {
      calls: [
        { name: 'sleep', server: 'slow', arguments: { ms: 60_000 } },
        { name: 'sleep', server: 'slow', arguments: { ms: 60_000 } },
        { name: 'fast', server: 'slow' },
      ],
    });
    const single = callTool(mcpUrl, 'invoke_read_tool', { name: 'sleep', server: 'slow', arguments: { ms: 60_000 } });
    await waitFor(() => (readCounts(counts)['tools/call:sleep'] ?? 0) === 2, 10_000, 'both calls reached the backend');
    router.child.kill('SIGTERM');

    const [batchAnswer, singleAnswer] = await Promise.all([batch, single]);
    assert.equal(singleAnswer.status, 'error');
    assert.match(singleAnswer.error, /shutting down/);
    assert.equal(batchAnswer.ok, false);
    const results = batchAnswer.results as { status: string; error?: string }[];
    assert.deepEqual(results.map((r) => r.status), ['error', 'error', 'error']);
    assert.match(results[0].error!, /stopped at the drain deadline/);
    assert.match(results[1].error!, /not dispatched/);
    assert.match(results[2].error!, /not dispatched/);

    const [code, signal] = await router.exited;
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, router.other());
    assert.deepEqual(readCounts(counts)['tools/call:sleep'], 2, 'the second batch entry never reached the backend');
    assert.equal(readCounts(counts)['tools/call:fast'], undefined);
    await waitFor(() => groups.every((group) => livingInGroup(group).length === 0), 5_000, 'every backend process group gone');
    const messages = router.logs.map(msgOf);
    for (const expected of ['drain deadline passed: stopping the calls in flight', 'drained: stopped calls answered', 'stopped']) {
      assert.ok(messages.includes(expected), `${expected} in ${JSON.stringify(messages)}`);
    }
  });
});

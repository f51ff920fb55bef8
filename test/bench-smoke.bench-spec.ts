import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { freePort, load, type Proc, startNullHttp, startRouter, toolCall } from '../bench/harness';

/**
 * A smoke run of the benchmark harness (`npm run bench`), so it cannot rot unnoticed: the router
 * in a child process as the benchmarks start it, a fixed number of calls against the null HTTP
 * backend, CPU booked from /proc, the post-GC heap read over IPC. It proves the harness runs and
 * books what it measures; how fast is the benchmark's question, not this one's. Part of
 * `npm run test:bench` (run by `.ci/run`), not of `npm test`.
 */
/** A count of calls, not a duration: the run ends when they are answered, however loaded the box. */
const CALLS = 200;
const dir = mkdtempSync(join(tmpdir(), 'centralmcp-bench-smoke-'));
const procs: Proc[] = [];
after(async () => {
  await Promise.allSettled(procs.map((p) => p.stop()));
  rmSync(dir, { recursive: true, force: true });
});

test('the benchmark harness runs the router against the null backend', async () => {
  const port = await freePort();
  const nul = await startNullHttp(port);
  procs.push(nul);
  const router = await startRouter(dir, { backends: { null: { transport: 'http', url: `http://127.0.0.1:${port}/mcp`, timeoutMs: 10_000 } } });
  procs.push(router);
  const r = await load({
    url: router.url,
    body: toolCall('invoke_read_tool', { name: 'fast', server: 'null' }),
    connections: 4,
    amount: CALLS,
    verify: (body) => body.includes('"status":"ok"'),
    watch: { router: router.pid },
  });
  assert.equal(r.failures, 0);
  assert.equal(r.requests, CALLS);
  assert.ok(r.cpuPerRequest.router > 0 && Number.isFinite(r.p99));
  const heap = await router.heap();
  assert.ok(heap.heapUsed > 1_000_000 && heap.rss > heap.heapUsed);
});

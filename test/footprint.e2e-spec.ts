import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { waitFor } from './support/backend-processes';
import { FAULT_SERVER } from './support/fault-backends';
import { msgOf, spawnRouter, stdioBackendYaml, type SpawnedRouter } from './support/router-process';
import { scrapeMetrics } from './support/metrics';

/**
 * What the router keeps resident, as an operator reads it on /metrics (prom-client's process
 * metrics): the lexicon's vectors are read from their file, not held (README, "Footprint"). A bound
 * with room: about 12 MiB outside the heap, where the vectors in memory made it 22.
 */

const routers: SpawnedRouter[] = [];
after(() => routers.forEach((r) => r.kill()));

const MiB = 2 ** 20;

async function call(url: string, id: number, name: string, args: Record<string, unknown>): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
  });
  assert.equal(res.status, 200);
  return res.text();
}

test('after a thousand calls the lexicon vectors are not resident; find_tool still ranks by meaning', async () => {
  const router = spawnRouter(['backends:', ...stdioBackendYaml('faults', FAULT_SERVER, ['--name', 'faults']), ''].join('\n'));
  routers.push(router);
  const url = await router.listening();
  await waitFor(() => router.logs.some((l) => msgOf(l) === 'backends started'), 60_000, 'backends started');

  // "quick" is not a word of the catalog: only its vector links it to `fast`.
  const found = await call(url, 0, 'find_tool', { query: 'quick' });
  assert.match(found, /fast/, 'find_tool still finds a tool by a word related by meaning');
  for (let i = 1; i <= 1000; i += 1) {
    const text = await call(url, i, 'invoke_read_tool', { name: 'fast', server: 'faults' });
    assert.doesNotMatch(text, /"isError":true/);
  }

  const metrics = await scrapeMetrics({ url });
  const external = metrics.get('centralmcp_router_nodejs_external_memory_bytes');
  assert.ok(external !== undefined, 'the process metrics are published');
  assert.ok(external <= 16 * MiB, `memory outside the heap ${(external / MiB).toFixed(1)} MiB`);
});

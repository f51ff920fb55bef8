import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { waitFor } from './support/backend-processes';
import { FAULT_SERVER } from './support/fault-backends';
import { msgOf, spawnRouter, stdioBackendYaml, type SpawnedRouter } from './support/router-process';
import { scrapeMetrics } from './support/metrics';

/**
 * What the router keeps resident, as an operator reads it on /metrics (prom-client's process
 * metrics): the lexicon's vectors and WordNet relations are read from their files, not held, and
 * the young generation stays small until the router is ready (README, "Footprint"). A bound with
 * room: about 9 MiB outside the heap, where the relations in memory made it 14 and the vectors 24.
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

test('after a thousand calls the lexicon vectors and relations are not resident; find_tool still ranks by meaning', async () => {
  const router = spawnRouter(['backends:', ...stdioBackendYaml('faults', FAULT_SERVER, ['--name', 'faults']), ''].join('\n'));
  routers.push(router);
  const url = await router.listening();
  await waitFor(() => router.logs.some((l) => msgOf(l) === 'backends started'), 60_000, 'backends started');

  // "quick" is not a word of the catalog: only its vector links it to `fast`.
  const found = await call(url, 0, 'find_tool', { query: 'quick' });
  assert.match(found, /fast/, 'find_tool still finds a tool by a word related by meaning');
  // Nor is "slumber": only WordNet, read from its file, names it a synonym of "sleep".
  const { hits } = (
    JSON.parse(await call(url, 0, 'find_tool', { query: 'slumber' })) as { result: { structuredContent: { hits: { name: string; score: number }[] } } }
  ).result.structuredContent;
  assert.equal(hits[0].name, 'sleep', 'find_tool finds a tool through a WordNet synonym');
  assert.ok(hits[0].score > 0);
  for (let i = 1; i <= 1000; i += 1) {
    const text = await call(url, i, 'invoke_read_tool', { name: 'fast', server: 'faults' });
    assert.doesNotMatch(text, /"isError":true/);
  }

  const metrics = await scrapeMetrics({ url });
  const external = metrics.get('centralmcp_router_nodejs_external_memory_bytes');
  assert.ok(external !== undefined, 'the process metrics are published');
  assert.ok(external <= 12 * MiB, `memory outside the heap ${(external / MiB).toFixed(1)} MiB`);
});

test('a router waiting for calls holds at most 110 MiB resident; calls grow its young generation to what load needs', async () => {
  const router = spawnRouter(['backends:', ...stdioBackendYaml('faults', FAULT_SERVER, ['--name', 'faults']), ''].join('\n'));
  routers.push(router);
  const url = await router.listening();
  await waitFor(() => router.logs.some((l) => msgOf(l) === 'backends started'), 60_000, 'backends started');
  const metrics = await scrapeMetrics({ url });
  const resident = metrics.get('centralmcp_router_process_resident_memory_bytes') ?? NaN;
  // With the lexicon loaded; about 120 MiB when the boot left the young generation at two 16 MiB
  // semi-spaces and Nest's date formatter had read ICU's data.
  assert.ok(resident <= 110 * MiB, `resident after boot ${(resident / MiB).toFixed(1)} MiB`);

  // Held during the boot, the young generation is V8's again: calls in flight grow it.
  const youngGeneration = async () => (await scrapeMetrics({ url })).get('centralmcp_router_nodejs_heap_space_size_total_bytes{space="new"}') ?? NaN;
  let calls = 0;
  while ((await youngGeneration()) <= 4 * MiB) {
    assert.ok(calls < 20_000, `the young generation still holds at most 4 MiB after ${calls} calls`);
    await Promise.all(Array.from({ length: 100 }, (_, i) => call(url, calls + i + 1, 'invoke_read_tool', { name: 'fast', server: 'faults' })));
    calls += 100;
  }
});

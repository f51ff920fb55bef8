import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { mirroredCounter } from './mirrored-counter';

function setUp(zeroed: string[] = []) {
  const counts = new Map<string, number>();
  const registry = new Registry();
  mirroredCounter({ name: 'things_total', help: 'Things.', labelName: 'kind', zeroed, read: () => counts, registers: [registry] });
  const scrape = async () => Object.fromEntries((await registry.getMetricsAsJSON())[0].values.map((v): [string, number] => [String(v.labels.kind), v.value]));
  return { counts, scrape };
}

test('zeroed series exist before the owner counts anything', async () => {
  const { scrape } = setUp(['a', 'b']);
  assert.deepEqual(await scrape(), { a: 0, b: 0 });
});

test('each scrape adds what the owner counted since the last one', async () => {
  const { counts, scrape } = setUp(['a']);
  counts.set('a', 2);
  assert.deepEqual(await scrape(), { a: 2 });
  counts.set('a', 5).set('b', 1);
  assert.deepEqual(await scrape(), { a: 5, b: 1 });
  assert.deepEqual(await scrape(), { a: 5, b: 1 }, 'nothing grew, nothing added');
});

test('an owner count that went down never makes the counter go down', async () => {
  const { counts, scrape } = setUp();
  counts.set('a', 3);
  await scrape();
  counts.set('a', 1);
  assert.deepEqual(await scrape(), { a: 3 });
  counts.set('a', 4);
  assert.deepEqual(await scrape(), { a: 4 });
});

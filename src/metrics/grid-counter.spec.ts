import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { GridCounter } from './grid-counter';

function grid() {
  const registry = new Registry();
  const counter = new GridCounter({
    name: 'grid_total',
    help: 'A test grid.',
    labelNames: ['version', 'method'],
    rows: ['a', 'b'],
    columns: ['x', 'y'],
    registers: [registry],
  });
  return { registry, counter };
}

test('every cell exists at 0; an event counts at its two indices, and each scrape adds only what grew', async () => {
  const { registry, counter } = grid();
  assert.match(await registry.metrics(), /^grid_total\{version="a",method="y"\} 0$/m);
  counter.inc(1, 0);
  counter.inc(1, 0);
  assert.match(await registry.metrics(), /^grid_total\{version="b",method="x"\} 2$/m);
  counter.inc(1, 0);
  const text = await registry.metrics();
  assert.match(text, /^grid_total\{version="b",method="x"\} 3$/m);
  assert.match(text, /^grid_total\{version="a",method="x"\} 0$/m);
  assert.match(text, /^# TYPE grid_total counter$/m);
});

test('an index outside the grid is not counted, and never spills into another cell', async () => {
  const { registry, counter } = grid();
  for (const [row, column] of [
    [2, 0],
    [0, 2],
    [-1, 0],
    [0, -1],
    [Number.NaN, 0],
    [0, 1.5],
  ])
    counter.inc(row, column);
  const samples = (await registry.metrics()).split('\n').filter((l) => l.startsWith('grid_total{'));
  assert.deepEqual(
    samples.map((l) => l.split(' ')[1]),
    ['0', '0', '0', '0'],
  );
});

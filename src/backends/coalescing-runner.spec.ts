import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { CoalescingRunner } from './coalescing-runner';

test('a burst of requests costs one run after the delay', async () => {
  let runs = 0;
  const runner = new CoalescingRunner(30, async () => void runs++);
  for (let i = 0; i < 50; i++) runner.request();
  assert.equal(runs, 0);
  await sleep(80);
  assert.equal(runs, 1);
  runner.stop();
});

test('a request during a run gives exactly one more run, never two at once', async () => {
  let runs = 0;
  let concurrent = 0;
  let maxConcurrent = 0;
  const runner = new CoalescingRunner(10, async () => {
    runs++;
    maxConcurrent = Math.max(maxConcurrent, ++concurrent);
    await sleep(50);
    concurrent--;
  });
  runner.request();
  await sleep(30); // first run in progress
  runner.request();
  runner.request();
  await sleep(150);
  assert.equal(runs, 2);
  assert.equal(maxConcurrent, 1);
  runner.stop();
});

test('a steady storm runs at a bounded rate', async () => {
  let runs = 0;
  const runner = new CoalescingRunner(40, async () => void runs++);
  const storm = setInterval(() => runner.request(), 2);
  await sleep(400);
  clearInterval(storm);
  runner.stop();
  assert.ok(runs >= 3 && runs <= 11, `runs=${runs}`);
});

test('nothing runs after stop', async () => {
  let runs = 0;
  const runner = new CoalescingRunner(10, async () => void runs++);
  runner.request();
  runner.stop();
  await sleep(40);
  assert.equal(runs, 0);
});

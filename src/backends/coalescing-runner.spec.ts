import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { CoalescingRunner } from './coalescing-runner';

test('a burst of requests costs one run after the delay', async () => {
  let runs = 0;
  const runner = new CoalescingRunner(30, () => Promise.resolve(void runs++));
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
  const runner = new CoalescingRunner(
    10,
    async () => {
      runs++;
      maxConcurrent = Math.max(maxConcurrent, ++concurrent);
      await sleep(50);
      concurrent--;
    },
    { spacingFactor: 0 },
  );
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
  const runner = new CoalescingRunner(40, () => Promise.resolve(void runs++));
  const storm = setInterval(() => runner.request(), 2);
  await sleep(400);
  clearInterval(storm);
  runner.stop();
  assert.ok(runs >= 3 && runs <= 11, `runs=${runs}`);
});

test('nothing runs after stop', async () => {
  let runs = 0;
  const runner = new CoalescingRunner(10, () => Promise.resolve(void runs++));
  runner.request();
  runner.stop();
  await sleep(40);
  assert.equal(runs, 0);
});

test('the delay grows to the spacing factor times the last run, within its cap', async () => {
  let clock = 0;
  const runner = new CoalescingRunner(10, () => Promise.resolve(void (clock += 30)), { spacingFactor: 5, maxDelayMs: 1000, now: () => clock });
  assert.equal(runner.nextDelayMs, 10);
  runner.request();
  await sleep(40);
  assert.equal(runner.nextDelayMs, 150, 'a 30 ms run spaces the next by 5 x 30 ms');
  const capped = new CoalescingRunner(10, () => Promise.resolve(void (clock += 10_000)), { spacingFactor: 5, maxDelayMs: 1000, now: () => clock });
  capped.request();
  await sleep(40);
  assert.equal(capped.nextDelayMs, 1000);
  runner.stop();
  capped.stop();
});

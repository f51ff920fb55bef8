import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoffDelayMs, DEFAULT_BACKOFF, INITIAL_SUPERVISION, planRestart, type SupervisionState } from './backoff';

test('the delay starts at 0.5 s and doubles up to 30 s', () => {
  const delays = [1, 2, 3, 4, 5, 6, 7, 8, 100].map((a) => backoffDelayMs(a));
  assert.deepEqual(delays, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
});

test('an attempt number below 1 is treated as the first attempt', () => {
  assert.equal(backoffDelayMs(0), 500);
  assert.equal(backoffDelayMs(-3), 500);
});

test('consecutive failed attempts walk up the schedule', () => {
  let state: SupervisionState = INITIAL_SUPERVISION;
  const delays: number[] = [];
  for (let i = 0; i < 4; i++) {
    const plan = planRestart(state, { kind: 'failed' }, i * 100_000); // far apart: no crash loop
    delays.push(plan.delayMs);
    state = plan.state;
  }
  assert.deepEqual(delays, [500, 1000, 2000, 4000]);
});

test('a connection that stayed up long enough resets the schedule', () => {
  const state: SupervisionState = { attempt: 6, exitsMs: [] };
  const plan = planRestart(state, { kind: 'lost', upSinceMs: 0 }, DEFAULT_BACKOFF.healthyAfterMs);
  assert.equal(plan.delayMs, 500);
  assert.equal(plan.state.attempt, 1);
});

test('a connection lost soon after it came up keeps doubling', () => {
  const state: SupervisionState = { attempt: 3, exitsMs: [] };
  const plan = planRestart(state, { kind: 'lost', upSinceMs: 1_000 }, 2_000);
  assert.equal(plan.delayMs, 4000);
  assert.equal(plan.state.attempt, 4);
});

test('five exits within a minute are a crash loop held at the 30 s cadence', () => {
  // Each connection lives 31 s, so the doubling alone would reset every time.
  const exitsMs = [0, 10_000, 20_000, 30_000];
  const plan = planRestart({ attempt: 0, exitsMs }, { kind: 'lost', upSinceMs: 9_000 }, 40_000);
  assert.equal(plan.crashLooping, true);
  assert.equal(plan.delayMs, 30_000);
});

test('exits older than the window are forgotten', () => {
  const exitsMs = [0, 1_000, 2_000, 3_000];
  const plan = planRestart({ attempt: 0, exitsMs }, { kind: 'failed' }, 61_500);
  assert.equal(plan.crashLooping, false);
  assert.deepEqual(plan.state.exitsMs, [2_000, 3_000, 61_500]);
});

test('four exits within the window are not yet a crash loop', () => {
  const plan = planRestart({ attempt: 0, exitsMs: [0, 1, 2] }, { kind: 'failed' }, 3);
  assert.equal(plan.crashLooping, false);
  assert.equal(plan.delayMs, 500);
});

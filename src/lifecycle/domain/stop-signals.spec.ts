import assert from 'node:assert/strict';
import { test } from 'node:test';
import { judgeStopSignal, SIGNAL_COALESCE_MS } from './stop-signals';

test('the first signal drains', () => {
  assert.equal(judgeStopSignal(undefined, 5_000), 'drain');
});

test('a signal arriving with the first is the same request: it changes nothing', () => {
  assert.equal(judgeStopSignal(5_000, 5_000), 'joined');
  assert.equal(judgeStopSignal(5_000, 5_013), 'joined');
  assert.equal(judgeStopSignal(5_000, 5_000 + SIGNAL_COALESCE_MS - 1), 'joined');
});

test('a signal that comes later stops at once', () => {
  assert.equal(judgeStopSignal(5_000, 5_000 + SIGNAL_COALESCE_MS), 'exit_now');
  assert.equal(judgeStopSignal(5_000, 60_000), 'exit_now');
});

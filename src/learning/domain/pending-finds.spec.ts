import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PendingFinds } from './pending-finds';

test("a call pairs with its principal's last request within the window, once", () => {
  const pending = new PendingFinds(120_000);
  pending.found('a', ['old'], 0);
  pending.found('a', ['new'], 1000);
  assert.equal(pending.take('b', 2000), undefined);
  assert.deepEqual(pending.take('a', 2000), ['new']);
  assert.equal(pending.take('a', 2000), undefined);
});

test('a request older than the window pairs with nothing', () => {
  const pending = new PendingFinds(120_000);
  pending.found('a', ['w'], 0);
  assert.equal(pending.take('a', 120_001), undefined);
});

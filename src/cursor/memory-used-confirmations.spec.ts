import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryUsedConfirmations } from './memory-used-confirmations';

test('an id is claimed once, refused while remembered, and forgotten after its time', async () => {
  let now = 1_000;
  const used = new MemoryUsedConfirmations({ now: () => now });
  assert.equal(await used.lookup('a'), 'unused');
  assert.equal(await used.claim('a', 500), 'claimed');
  assert.equal(await used.lookup('a'), 'used');
  assert.equal(await used.claim('a', 500), 'used');
  assert.equal(await used.claim('b', 500), 'claimed');
  now = 1_499;
  assert.equal(await used.claim('a', 500), 'used');
  now = 1_500;
  assert.equal(await used.lookup('a'), 'unused');
  assert.equal(await used.claim('a', 500), 'claimed');
});

test('each record has a scope of its own: a new process never vouches for the tokens of an earlier one', () => {
  const clock = { now: () => 0 };
  assert.notEqual(new MemoryUsedConfirmations(clock).scope, new MemoryUsedConfirmations(clock).scope);
});

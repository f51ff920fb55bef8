import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BodyBudget, reservationOf } from './body-budget';

test('reservations fit under the bound, and what is released can be reserved again', () => {
  const budget = new BodyBudget(100);
  assert.equal(budget.tryReserve(60), true);
  assert.equal(budget.tryReserve(41), false);
  assert.equal(budget.heldBytes, 60);
  assert.equal(budget.tryReserve(40), true);
  budget.release(60);
  assert.equal(budget.tryReserve(60), true);
  budget.release(500);
  assert.equal(budget.heldBytes, 0);
});

test('a request reserves what it announces, at most the body limit; a chunked one the whole limit', () => {
  assert.equal(reservationOf('1234', undefined, 4096), 1234);
  assert.equal(reservationOf('999999', undefined, 4096), 4096);
  assert.equal(reservationOf(undefined, 'chunked', 4096), 4096);
  assert.equal(reservationOf(undefined, undefined, 4096), 0);
  assert.equal(reservationOf('0', undefined, 4096), 0);
});

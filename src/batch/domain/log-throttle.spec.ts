import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LogThrottle } from './log-throttle';

test('one line per key per window, then the count of those held back', () => {
  const throttle = new LogThrottle(10_000);
  assert.deepEqual(throttle.check('files:backend_timeout', 0), { write: true, suppressed: 0 });
  assert.deepEqual(throttle.check('files:backend_timeout', 1_000), { write: false });
  assert.deepEqual(throttle.check('files:backend_timeout', 9_999), { write: false });
  assert.deepEqual(throttle.check('files:backend_failed', 5_000), { write: true, suppressed: 0 }, 'another reason has its own window');
  assert.deepEqual(throttle.check('docs:backend_timeout', 5_000), { write: true, suppressed: 0 }, 'another backend too');
  assert.deepEqual(throttle.check('files:backend_timeout', 10_000), { write: true, suppressed: 2 });
  assert.deepEqual(throttle.check('files:backend_timeout', 30_000), { write: true, suppressed: 0 });
});

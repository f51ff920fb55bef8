import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requireRedisServer } from './support/redis-server';

/** Issue 15: without redis-server the shared rate-limit tests fail naming the package, never skip. */
test('a missing redis-server is a failure that names the Debian package', () => {
  assert.throws(() => requireRedisServer({ PATH: '/nonexistent' }), /redis-server is not on PATH.*apt-get install redis-server/s);
  assert.doesNotThrow(() => requireRedisServer());
});

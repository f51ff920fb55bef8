import assert from 'node:assert/strict';
import { test } from 'node:test';
import { onPath, PREREQUISITES, requireCommand, type Prerequisite } from './support/prerequisites';
import { requireRedisServer } from './support/redis-server';

/** A missing redis-server, promtool or valgrind fails the tests that need it, naming the Debian package; nothing is skipped. */
test('a missing prerequisite is a failure that names its Debian package', () => {
  for (const [command, { debianPackage }] of Object.entries(PREREQUISITES)) {
    assert.throws(
      () => requireCommand(command as Prerequisite, '/nonexistent'),
      new RegExp(`^Error: ${command} is not on PATH: .*Install the Debian package ${debianPackage} \\(apt-get install ${debianPackage}\\)`),
    );
  }
  assert.throws(() => requireRedisServer({ PATH: '/nonexistent' }), /redis-server is not on PATH.*apt-get install redis-server/s);
});

test('a program is looked up on PATH without starting it', () => {
  // `node` is on PATH wherever the suite runs; the lookup only checks for an executable file.
  assert.equal(onPath('node', `/nonexistent::${process.env.PATH}`), true);
  assert.equal(onPath('node', '/nonexistent'), false);
});

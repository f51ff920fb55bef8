import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { PinsLockBusyError, withPinsLock } from './pins-lock';

const fresh = () => join(mkdtempSync(join(tmpdir(), 'centralmcp-pins-lock-')), 'pins.json');
const holder = (host: string, pid: number) => JSON.stringify({ pid, host, token: 'other', at: new Date().toISOString() });

test('the lock is held while the function runs and removed after, also when it throws', () => {
  const file = fresh();
  assert.equal(
    withPinsLock(file, () => existsSync(`${file}.lock`), { waitMs: 100, staleMs: 10_000 }),
    true,
  );
  assert.equal(existsSync(`${file}.lock`), false);
  assert.throws(
    () =>
      withPinsLock(
        file,
        () => {
          throw new Error('boom');
        },
        { waitMs: 100, staleMs: 10_000 },
      ),
    /boom/,
  );
  assert.equal(existsSync(`${file}.lock`), false);
});

test('a live holder makes a writer wait, then give up with an error naming the holder', () => {
  const file = fresh();
  // The parent of this process exists: a live holder on this host.
  writeFileSync(`${file}.lock`, holder(hostname(), process.ppid));
  assert.throws(
    () => withPinsLock(file, () => 'ran', { waitMs: 50, staleMs: 10_000 }),
    (err: unknown) => err instanceof PinsLockBusyError && /pid \d+ on /.test(err.message),
  );
  assert.equal(existsSync(`${file}.lock`), true, "the holder's lock stays");
});

test("another host's lock is broken only once it is older than staleMs", () => {
  const file = fresh();
  writeFileSync(`${file}.lock`, holder('some-other-pod', 1));
  assert.throws(() => withPinsLock(file, () => 'ran', { waitMs: 30, staleMs: 60_000 }), PinsLockBusyError);
  const old = new Date(Date.now() - 120_000);
  utimesSync(`${file}.lock`, old, old);
  assert.equal(
    withPinsLock(file, () => 'ran', { waitMs: 30, staleMs: 60_000 }),
    'ran',
  );
  assert.equal(existsSync(`${file}.lock`), false);
});

test('a lock of a process of this host that is gone, or of a former process with our pid, is broken at once', () => {
  const file = fresh();
  writeFileSync(`${file}.lock`, holder(hostname(), process.pid));
  assert.equal(
    withPinsLock(file, () => 'ran', { waitMs: 30, staleMs: 60_000 }),
    'ran',
  );
  assert.equal(existsSync(`${file}.lock`), false);
});

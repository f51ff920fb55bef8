import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BackendState } from '../../backends/backends.types';
import { readiness } from './readiness';

const state = (name: string, status: BackendState['status'], required = true): BackendState => ({
  name,
  transport: 'stdio',
  required,
  status,
  restarts: 0,
  tools: 3,
});

const verdicts = (entries: ReturnType<typeof readiness>) => Object.fromEntries(entries.map((e) => [e.key, e.ready]));

test('ready when every required backend is up with a catalog and not draining', () => {
  const entries = readiness([state('files', 'up'), state('docs', 'down', false)], new Map([['files', 3]]), false);
  assert.deepEqual(verdicts(entries), { 'backend:files': true, 'backend:docs': true, catalog: true, lifecycle: true });
  assert.deepEqual(entries[1].detail, { state: 'down', required: false, transport: 'stdio', restarts: 0, tools: 3 });
});

test('a required backend that is down or still connecting is not ready, and its catalog may be missing', () => {
  const entries = readiness([state('files', 'down'), state('memory', 'connecting')], new Map([['files', 3]]), false);
  assert.deepEqual(verdicts(entries), { 'backend:files': false, 'backend:memory': false, catalog: false, lifecycle: true });
  assert.deepEqual(entries.find((e) => e.key === 'catalog')?.detail, { tools: 3, missing: ['memory'] });
});

test('draining is never ready', () => {
  assert.deepEqual(verdicts(readiness([state('files', 'up')], new Map([['files', 3]]), true)), {
    'backend:files': true,
    catalog: true,
    lifecycle: false,
  });
});

test('the rate-limit store is listed and never holds readiness back; its detail says what calls get', () => {
  const up = [state('files', 'up')];
  const sizes = new Map([['files', 3]]);
  const entry = (status: Parameters<typeof readiness>[3]) => readiness(up, sizes, false, status).find((e) => e.key === 'rateLimitStore');
  assert.deepEqual(entry({ store: 'memory', up: true, fallbacks: { local: 0, refused: 0 } }), {
    key: 'rateLimitStore',
    ready: true,
    detail: { store: 'memory', state: 'up', calls: 'local' },
  });
  const redis = { store: 'redis' as const, fallbacks: { local: 4, refused: 0 }, policy: { fail: 'open' as const, replicas: 3 } };
  assert.deepEqual(entry({ ...redis, up: true })?.detail, { store: 'redis', state: 'up', calls: 'shared' });
  assert.deepEqual(entry({ ...redis, up: false }), {
    key: 'rateLimitStore',
    ready: true,
    detail: { store: 'redis', state: 'down', calls: 'local share 1/3 (fail open)' },
  });
  assert.deepEqual(entry({ ...redis, up: false, policy: { fail: 'closed', replicas: 3 } })?.detail.calls, 'refused (fail closed)');
  assert.equal(readiness(up, sizes, false).length, 3, 'without a store status there is no entry');
});

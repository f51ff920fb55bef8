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

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WRITES_DEFAULTS } from '../config.defaults';
import type { BackendConfig, RouterConfig } from '../config.types';
import { isEmptyChange, needsNewConnection, planReload } from './reload-plan';

function backend(name: string, extra: Partial<BackendConfig> = {}): BackendConfig {
  return {
    name,
    transport: 'http',
    url: `http://127.0.0.1:1/${name}`,
    headers: {},
    required: false,
    timeoutMs: 30_000,
    era: 'auto',
    ...extra,
  } as BackendConfig;
}

function config(extra: Partial<RouterConfig> = {}): RouterConfig {
  return {
    http: { host: '127.0.0.1', port: 8010, bodyLimitBytes: 1, allowedHosts: [], allowedOrigins: [] },
    budgets: { responseMaxBytes: 1, responseMaxItems: 1, batchResponseMaxBytes: 1 },
    cursor: { ttlSeconds: 900, secret: Buffer.from('boot key') },
    logLevel: 'info',
    backends: [backend('a'), backend('b'), backend('c')],
    policy: { readOnly: { allow: [], deny: [] } },
    auth: { mode: 'apiKeys', allowInsecure: false, apiKeys: [{ sha256: 'a'.repeat(64), principal: 'alice', groups: [] }] },
    access: { rules: [] },
    audit: { sink: 'stdout' },
    writes: WRITES_DEFAULTS,
    source: { path: '/etc/router.yaml', watch: true },
    ...extra,
  };
}

test('the same file again changes nothing', () => {
  const plan = planReload(config(), config());
  assert.ok(isEmptyChange(plan.change));
});

test('backends are named added, removed and changed; an unchanged one is not', () => {
  const running = config();
  const loaded = config({ backends: [backend('a'), backend('c', { timeoutMs: 5000 }), backend('d')] });
  const { change, config: next } = planReload(running, loaded);
  assert.deepEqual(
    { added: change.backendsAdded, removed: change.backendsRemoved, changed: change.backendsChanged },
    { added: ['d'], removed: ['b'], changed: ['c'] },
  );
  assert.deepEqual(
    next.backends.map((b) => b.name),
    ['a', 'c', 'd'],
  );
});

test('environment settings stay as running, the cursor key included, so cursors issued before stay valid', () => {
  const running = config();
  const loaded = config({ cursor: { ttlSeconds: 900, secret: Buffer.from('another random key') }, logLevel: 'debug' });
  const { config: next, change } = planReload(running, loaded);
  assert.equal(next.cursor, running.cursor);
  assert.equal(next.logLevel, 'info');
  assert.equal(next.source, running.source);
  assert.ok(isEmptyChange(change));
});

test('live sections apply; restart-only sections keep their running value and are named', () => {
  const running = config();
  const loaded = config({
    policy: { readOnly: { allow: ['a:*'], deny: [] } },
    principalRateLimit: { ratePerSecond: 1, burst: 1 },
    audit: { sink: 'file', path: '/var/log/audit.jsonl' },
  });
  const { config: next, change } = planReload(running, loaded);
  assert.deepEqual(change.sectionsChanged, ['policy', 'principalRateLimit']);
  assert.deepEqual(change.restartRequired, ['audit']);
  assert.deepEqual(next.policy, loaded.policy);
  assert.deepEqual(next.principalRateLimit, loaded.principalRateLimit);
  assert.equal(next.audit, running.audit);
});

test('API keys apply at once; a change of auth mode waits for a restart', () => {
  const running = config();
  const rotated = config({ auth: { mode: 'apiKeys', allowInsecure: false, apiKeys: [{ sha256: 'b'.repeat(64), principal: 'bob', groups: [] }] } });
  const keys = planReload(running, rotated);
  assert.deepEqual(keys.change.sectionsChanged, ['auth']);
  assert.equal(keys.config.auth, rotated.auth);
  const none = planReload(running, config({ auth: { mode: 'none', allowInsecure: false } }));
  assert.deepEqual(none.change.restartRequired, ['auth']);
  assert.equal(none.config.auth, running.auth);
});

test('trust between warn and enforce on one pins file applies; turning it off waits for a restart', () => {
  const enforce = config({ trust: { mode: 'enforce', pinsFile: '/pins.json', approveNewBackends: false, relistSeconds: 300 } });
  const warn = planReload(enforce, config({ trust: { mode: 'warn', pinsFile: '/pins.json', approveNewBackends: false, relistSeconds: 60 } }));
  assert.deepEqual(warn.change.sectionsChanged, ['trust']);
  assert.equal(warn.config.trust?.mode, 'warn');
  const off = planReload(enforce, config({ trust: { mode: 'off', approveNewBackends: false, relistSeconds: 300 } }));
  assert.deepEqual(off.change.restartRequired, ['trust']);
  assert.equal(off.config.trust?.mode, 'enforce');
  const moved = planReload(enforce, config({ trust: { mode: 'enforce', pinsFile: '/other.json', approveNewBackends: false, relistSeconds: 300 } }));
  assert.deepEqual(moved.change.restartRequired, ['trust']);
});

test('write rules apply; turning writes on or off waits for a restart', () => {
  const running = config();
  const loaded = config({ writes: { ...WRITES_DEFAULTS, enabled: !WRITES_DEFAULTS.enabled, allow: ['a:*'] } });
  const { config: next, change } = planReload(running, loaded);
  assert.deepEqual(change.restartRequired, ['writes.enabled']);
  assert.deepEqual(change.sectionsChanged, ['writes']);
  assert.equal(next.writes?.enabled, WRITES_DEFAULTS.enabled);
  assert.deepEqual(next.writes?.allow, ['a:*']);
});

test('a backend whose rate limit alone changed keeps its connection', () => {
  assert.equal(needsNewConnection(backend('a'), backend('a', { rateLimit: { ratePerSecond: 1, burst: 1 } })), false);
  assert.equal(needsNewConnection(backend('a'), backend('a', { timeoutMs: 1 })), true);
});

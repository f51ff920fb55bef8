import assert from 'node:assert/strict';
import { test } from 'node:test';
import { trustSettings } from './trust-settings';

const abs = (p: string) => `/etc/router/${p}`;

test('a pins file makes enforce the default; without one trust is off', () => {
  const problems: string[] = [];
  assert.deepEqual(trustSettings({ pinsFile: 'pins.json' }, abs, problems), {
    mode: 'enforce',
    pinsFile: '/etc/router/pins.json',
    approveNewBackends: false,
    relistSeconds: 300,
  });
  assert.equal(trustSettings(undefined, abs, problems).mode, 'off');
  assert.deepEqual(problems, []);
});

test('warn or enforce without a pins file is refused', () => {
  const problems: string[] = [];
  trustSettings({ mode: 'warn' }, abs, problems);
  assert.deepEqual(problems, ['trust.pinsFile: required with trust.mode: warn']);
});

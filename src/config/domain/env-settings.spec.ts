import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_DRAIN_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT_MS, readEnvSettings } from './env-settings';

function read(env: Record<string, string>): { drainTimeoutMs: number; problems: string[] } {
  const problems: string[] = [];
  const { drainTimeoutMs } = readEnvSettings(env, problems).lifecycle;
  return { drainTimeoutMs, problems };
}

test('the drain deadline defaults to 10 s', () => {
  assert.deepEqual(read({}), { drainTimeoutMs: DEFAULT_DRAIN_TIMEOUT_MS, problems: [] });
  assert.equal(DEFAULT_DRAIN_TIMEOUT_MS, 10_000);
});

test('the drain deadline accepts 0..120000 and names the variable otherwise', () => {
  assert.deepEqual(read({ CENTRALMCP_ROUTER_DRAIN_TIMEOUT_MS: '0' }), { drainTimeoutMs: 0, problems: [] });
  assert.deepEqual(read({ CENTRALMCP_ROUTER_DRAIN_TIMEOUT_MS: '120000' }), { drainTimeoutMs: 120_000, problems: [] });
  for (const bad of ['-1', '120001', '2.5', 'ten']) {
    const { problems } = read({ CENTRALMCP_ROUTER_DRAIN_TIMEOUT_MS: bad });
    assert.deepEqual(problems, ['CENTRALMCP_ROUTER_DRAIN_TIMEOUT_MS: must be an integer from 0 to 120000'], bad);
  }
});

test('the request timeout defaults to 30 s and accepts 1000..600000', () => {
  const problems: string[] = [];
  assert.equal(readEnvSettings({}, problems).http.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS);
  assert.equal(DEFAULT_REQUEST_TIMEOUT_MS, 30_000);
  assert.equal(readEnvSettings({ CENTRALMCP_ROUTER_REQUEST_TIMEOUT_MS: '1000' }, problems).http.requestTimeoutMs, 1000);
  assert.deepEqual(problems, []);
  readEnvSettings({ CENTRALMCP_ROUTER_REQUEST_TIMEOUT_MS: '999' }, problems);
  assert.deepEqual(problems, ['CENTRALMCP_ROUTER_REQUEST_TIMEOUT_MS: must be an integer from 1000 to 600000']);
});

test('the log level is one of the listed levels, trimmed; another is a problem and info stands', () => {
  const level = (value: string | undefined) => {
    const problems: string[] = [];
    return { level: readEnvSettings(value === undefined ? {} : { CENTRALMCP_ROUTER_LOG_LEVEL: value }, problems).logLevel, problems };
  };
  assert.deepEqual(level(undefined), { level: 'info', problems: [] });
  assert.deepEqual(level(' debug '), { level: 'debug', problems: [] });
  assert.deepEqual(level('loud'), { level: 'info', problems: ['CENTRALMCP_ROUTER_LOG_LEVEL: must be one of fatal, error, warn, info, debug, verbose'] });
});

test('watching the config file is off by default, on with true or 1, and anything else is a problem', () => {
  const watch = (value?: string) => {
    const problems: string[] = [];
    return { watch: readEnvSettings(value === undefined ? {} : { CENTRALMCP_ROUTER_WATCH_CONFIG: value }, problems).watchConfig, problems };
  };
  assert.deepEqual(watch(), { watch: false, problems: [] });
  assert.deepEqual(watch(' TRUE '), { watch: true, problems: [] });
  assert.deepEqual(watch('1'), { watch: true, problems: [] });
  assert.deepEqual(watch('false'), { watch: false, problems: [] });
  assert.deepEqual(watch('yes'), { watch: false, problems: ['CENTRALMCP_ROUTER_WATCH_CONFIG: must be true or false'] });
  assert.deepEqual(watch('constructor').problems, ['CENTRALMCP_ROUTER_WATCH_CONFIG: must be true or false']);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../config.errors';
import { loadConfig } from '../config.loader';

const HASH = 'a'.repeat(64);
const BACKENDS = 'backends:\n  files: { transport: stdio, command: node }\n';

function load(security: string, env: Record<string, string> = {}) {
  return loadConfig({ CENTRALMCP_ROUTER_CONFIG: '/etc/router/config.yaml', ...env }, () => BACKENDS + security);
}

function problemsOf(security: string, env: Record<string, string> = {}): string[] {
  try {
    load(security, env);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.problems;
  }
  assert.fail('expected a ConfigError');
}

const OFF_LOOPBACK = { CENTRALMCP_ROUTER_HOST: '0.0.0.0' };

test('without security blocks: no auth, no rules, audit to stdout, no metrics port', () => {
  const config = load('');
  assert.deepEqual(config.auth, { mode: 'none', allowInsecure: false });
  assert.deepEqual(config.access, {});
  assert.deepEqual(config.audit, { sink: 'stdout' });
  assert.equal(config.http.metricsPort, undefined);
});

test('mode none is refused off loopback, naming auth.mode, unless allowInsecure', () => {
  for (const host of ['0.0.0.0', '::', '10.1.2.3', 'router.internal']) {
    const problems = problemsOf('', { CENTRALMCP_ROUTER_HOST: host });
    assert.equal(problems.length, 1, problems.join('\n'));
    assert.match(problems[0], /^auth\.mode: none .*refused on the non-loopback address/);
  }
  assert.match(problemsOf('auth: { mode: none }\n', OFF_LOOPBACK)[0], /^auth\.mode/);
  assert.deepEqual(load('auth: { mode: none, allowInsecure: true }\n', OFF_LOOPBACK).auth, { mode: 'none', allowInsecure: true });
  for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1']) assert.equal(load('', { CENTRALMCP_ROUTER_HOST: host }).auth?.mode, 'none');
});

test('apiKeys: hashes normalized to lower case, groups default to none, several keys per principal', () => {
  const config = load(
    `
auth:
  mode: apiKeys
  apiKeys:
    - { principal: alice, sha256: "${HASH.toUpperCase()}", groups: [readers, "/org/ops"] }
    - { principal: alice, sha256: "${'b'.repeat(64)}" }
access:
  - { groups: [readers], allow: ["files:*"] }
`,
    OFF_LOOPBACK,
  );
  assert.deepEqual(config.auth, {
    mode: 'apiKeys',
    allowInsecure: false,
    apiKeys: [
      { principal: 'alice', sha256: HASH, groups: ['readers', '/org/ops'] },
      { principal: 'alice', sha256: 'b'.repeat(64), groups: [] },
    ],
  });
  assert.deepEqual(config.access, { rules: [{ groups: ['readers'], allow: ['files:*'] }] });
});

test('apiKeys: every bad key is named by its field', () => {
  const problems = problemsOf(`
auth:
  mode: apiKeys
  apiKeys:
    - { principal: "al ice", sha256: "not-hex" }
    - { principal: bob, sha256: "${HASH}", groups: [""] , key: "plain-text" }
    - { principal: carol, sha256: "${HASH}" }
access: []
`);
  const text = problems.join('\n');
  for (const field of [
    'auth.apiKeys.0.principal',
    'auth.apiKeys.0.sha256',
    'auth.apiKeys.1.groups',
    'auth.apiKeys.1.key',
    'auth.apiKeys.2.sha256: the same key hash',
  ]) {
    assert.ok(text.includes(field), `${field} in:\n${text}`);
  }
  assert.match(problemsOf('auth: { mode: apiKeys }\naccess: []\n').join('\n'), /auth\.apiKeys: auth\.mode apiKeys needs at least one key/);
  assert.match(problemsOf('auth: { mode: apiKeys, apiKeys: [] }\naccess: []\n').join('\n'), /auth\.apiKeys: auth\.mode apiKeys needs/);
});

test('jwt: defaults for the claim, algorithms and skew', () => {
  const config = load(`
auth:
  mode: jwt
  jwt: { issuer: "https://idp.example.com/", audience: "https://router.example.com/mcp", jwksUri: "https://idp.example.com/jwks.json" }
access: [{ groups: ["*"], allow: ["*"] }]
`);
  assert.deepEqual(config.auth, {
    mode: 'jwt',
    allowInsecure: false,
    jwt: {
      issuer: 'https://idp.example.com/',
      audience: 'https://router.example.com/mcp',
      jwksUri: 'https://idp.example.com/jwks.json',
      groupsClaim: 'groups',
      algorithms: ['RS256', 'ES256', 'PS256', 'EdDSA'],
      clockToleranceSeconds: 30,
    },
  });
});

test('jwt: no none, no HS*, no plain-http key set off loopback, every field named', () => {
  const problems = problemsOf(`
auth:
  mode: jwt
  jwt: { issuer: "idp", audience: "https://r/mcp", jwksUri: "http://idp.example.com/jwks", algorithms: [RS256, HS256, none], clockToleranceSeconds: 3600 }
access: []
`);
  const text = problems.join('\n');
  for (const field of [
    'auth.jwt.issuer',
    'auth.jwt.algorithms: each algorithm must be one of',
    'auth.jwt.clockToleranceSeconds',
    'auth.jwt.jwksUri: must be an https URL',
  ]) {
    assert.ok(text.includes(field), `${field} in:\n${text}`);
  }
  assert.match(problemsOf('auth: { mode: jwt }\naccess: []\n').join('\n'), /auth\.jwt: auth\.mode jwt needs/);
  assert.match(
    problemsOf('auth: { mode: jwt, jwt: { issuer: "https://i/", audience: "https://a/", jwksUri: "https://i/k", algorithms: [] } }\naccess: []\n').join('\n'),
    /auth\.jwt\.algorithms/,
  );
  // A local identity provider may serve its keys over http (development, tests).
  const local = load(
    'auth: { mode: jwt, jwt: { issuer: "http://127.0.0.1:9/", audience: "http://127.0.0.1:8010/mcp", jwksUri: "http://127.0.0.1:9/jwks" } }\naccess: []\n',
  );
  assert.equal(local.auth?.mode, 'jwt');
});

test('the auth block needs a known mode, and a block for another mode is a mistake', () => {
  assert.match(problemsOf('auth: { mode: oauth }\n').join('\n'), /auth\.mode: mode must be one of/);
  assert.match(problemsOf('auth: { allowInsecure: true }\n').join('\n'), /auth\.mode/);
  const text = problemsOf(
    `auth: { mode: apiKeys, apiKeys: [{ principal: a, sha256: "${HASH}" }], jwt: { issuer: "https://i/", audience: "https://a/", jwksUri: "https://i/k" } }\naccess: []\n`,
  ).join('\n');
  assert.match(text, /auth\.jwt: only used with auth\.mode jwt/);
});

test('access: with auth on, a missing block is a boot error; rules need groups, allow may be empty', () => {
  assert.match(problemsOf(`auth: { mode: apiKeys, apiKeys: [{ principal: a, sha256: "${HASH}" }] }\n`).join('\n'), /^access: with auth\.mode apiKeys/m);
  const text = problemsOf(
    'access:\n  - { groups: [], allow: ["*"] }\n  - { groups: [a], allow: "files:*" }\n  - { groups: [a], allow: [""], extra: 1 }\n',
  ).join('\n');
  for (const field of ['access.0.groups', 'access.1.allow', 'access.2.allow', 'access.2.extra']) assert.ok(text.includes(field), `${field} in:\n${text}`);
  assert.deepEqual(load('access:\n  - { groups: [interns], allow: [] }\n').access, { rules: [{ groups: ['interns'], allow: [] }] });
});

test('audit: stdout or a file relative to the config file', () => {
  assert.deepEqual(load('audit: { sink: stdout }\n').audit, { sink: 'stdout' });
  assert.deepEqual(load('audit: { sink: file, path: logs/audit.jsonl }\n').audit, { sink: 'file', path: '/etc/router/logs/audit.jsonl' });
  assert.deepEqual(load('audit: { sink: file, path: /var/log/a.jsonl }\n').audit, { sink: 'file', path: '/var/log/a.jsonl' });
  assert.match(problemsOf('audit: { sink: file }\n').join('\n'), /audit\.path/);
  assert.match(problemsOf('audit: { sink: stdout, path: x }\n').join('\n'), /audit\.path: only used with audit\.sink file/);
  assert.match(problemsOf('audit: { sink: syslog }\n').join('\n'), /audit\.sink/);
});

test('CENTRALMCP_ROUTER_METRICS_PORT: optional, in range, not the main port', () => {
  assert.equal(load('', { CENTRALMCP_ROUTER_METRICS_PORT: '9464' }).http.metricsPort, 9464);
  assert.deepEqual(problemsOf('', { CENTRALMCP_ROUTER_METRICS_PORT: '0' }), ['CENTRALMCP_ROUTER_METRICS_PORT: must be an integer from 1 to 65535']);
  assert.deepEqual(problemsOf('', { CENTRALMCP_ROUTER_METRICS_PORT: 'nine' }), ['CENTRALMCP_ROUTER_METRICS_PORT: must be an integer from 1 to 65535']);
  assert.deepEqual(problemsOf('', { CENTRALMCP_ROUTER_METRICS_PORT: '8010' }), ['CENTRALMCP_ROUTER_METRICS_PORT: must differ from CENTRALMCP_ROUTER_PORT']);
});

test('writes: off by default; enabled with its globs; access rules may carry write globs', () => {
  assert.deepEqual(load('').writes, { enabled: false, allow: [], deny: [] });
  const config = load(
    'writes: { enabled: true, allow: ["files:*"], deny: ["files:move_file"] }\naccess:\n  - { groups: [editors], allow: ["*"], write: ["files:*"] }\n',
  );
  assert.deepEqual(config.writes, { enabled: true, allow: ['files:*'], deny: ['files:move_file'] });
  assert.deepEqual(config.access, { rules: [{ groups: ['editors'], allow: ['*'], write: ['files:*'] }] });
  const problems = problemsOf('writes: { enabled: "yes", allow: "files:*", extra: 1 }\naccess:\n  - { groups: [a], allow: [], write: [""] }\n').join('\n');
  assert.match(problems, /writes\.enabled/);
  assert.match(problems, /writes\.allow/);
  assert.match(problems, /writes\.extra/);
  assert.match(problems, /access\.0\.write/);
});

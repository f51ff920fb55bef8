import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from './config.errors';
import { loadConfig } from './config.loader';

function load(text: string, env: Record<string, string> = {}, path = '/etc/router/config.yaml') {
  return loadConfig({ CENTRALMCP_ROUTER_CONFIG: path, ...env }, () => text);
}

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.problems;
  }
  assert.fail('expected a ConfigError');
}

const minimal = `
backends:
  files:
    transport: stdio
    command: node
    args: [server.js, ./data]
  docs:
    transport: http
    url: https://docs.internal/mcp
    headers: { Authorization: "Bearer \${DOCS_TOKEN}" }
    required: false
    timeoutMs: 5000
    rateLimit: { ratePerSecond: 2, burst: 4 }
policy:
  readOnly: { allow: ["files:list_*"], deny: ["files:read_secret*"] }
`;

test('a valid file with defaults and expanded secrets', () => {
  const config = load(minimal, { DOCS_TOKEN: 't0k' });
  assert.equal(config.http.host, '127.0.0.1');
  assert.equal(config.http.port, 8010);
  assert.equal(config.budgets.responseMaxBytes, 200_000);
  assert.equal(config.cursor.ttlSeconds, 900);
  assert.equal(config.cursor.secret.length, 32);
  const [files, docs] = config.backends;
  assert.deepEqual(files, {
    name: 'files',
    transport: 'stdio',
    command: 'node',
    args: ['server.js', './data'],
    env: {},
    inheritedEnv: {},
    cwd: '/etc/router',
    required: true,
    timeoutMs: 30_000,
    rateLimit: undefined,
    era: 'auto',
  });
  assert.deepEqual(docs, {
    name: 'docs',
    transport: 'http',
    url: 'https://docs.internal/mcp',
    headers: { Authorization: 'Bearer t0k' },
    required: false,
    timeoutMs: 5000,
    rateLimit: { ratePerSecond: 2, burst: 4 },
    era: 'auto',
  });
  assert.deepEqual(config.policy.readOnly, { allow: ['files:list_*'], deny: ['files:read_secret*'] });
});

test('JSON config files are read too', () => {
  const config = load(JSON.stringify({ backends: { a: { transport: 'sse', url: 'http://127.0.0.1:9/sse' } } }), {}, '/x/c.json');
  assert.equal(config.backends[0].transport, 'sse');
});

test('era: auto by default over Streamable HTTP, legacy or modern when set; sse is legacy only; a bad value is named', () => {
  const era = (yaml: string) => (load(`backends:\n  a:\n${yaml}`).backends[0] as { era?: string }).era;
  assert.equal(era('    transport: http\n    url: http://127.0.0.1:9/mcp\n    era: modern\n'), 'modern');
  assert.equal(era('    transport: http\n    url: http://127.0.0.1:9/mcp\n    era: legacy\n'), 'legacy');
  assert.equal(era('    transport: sse\n    url: http://127.0.0.1:9/sse\n'), undefined);
  assert.equal(era('    transport: sse\n    url: http://127.0.0.1:9/sse\n    era: legacy\n'), undefined);
  const sse = problemsOf(() => load('backends:\n  a:\n    transport: sse\n    url: http://127.0.0.1:9/sse\n    era: modern\n'));
  assert.ok(
    sse.some((p) => /^backends\.a\.era: transport sse speaks only the legacy era/.test(p)),
    sse.join('\n'),
  );
  const bad = problemsOf(() => load('backends:\n  a:\n    transport: http\n    url: http://127.0.0.1:9/mcp\n    era: 2026\n'));
  assert.ok(
    bad.some((p) => p.startsWith('backends.a.era')),
    bad.join('\n'),
  );
});

test('era on stdio: auto by default, legacy or modern when set, a bad value named', () => {
  const era = (yaml: string) => (load(`backends:\n  a:\n    transport: stdio\n    command: node\n${yaml}`).backends[0] as { era?: string }).era;
  assert.equal(era(''), 'auto');
  assert.equal(era('    era: modern\n'), 'modern');
  assert.equal(era('    era: legacy\n'), 'legacy');
  const bad = problemsOf(() => load('backends:\n  a:\n    transport: stdio\n    command: node\n    era: new\n'));
  assert.ok(
    bad.some((p) => p.startsWith('backends.a.era')),
    bad.join('\n'),
  );
});

test('every problem names its field', () => {
  const problems = problemsOf(() =>
    load(`
backends:
  Bad_Name: { transport: stdio, command: node }
  files: { transport: stdio, command: 42, timeoutMs: 5 }
  web: { transport: http, url: "not a url", color: blue }
  docs: { transport: http, url: "https://x/\${MISSING_TOKEN}" }
rateLimit: { ratePerSecond: 0, burst: 1 }
extra: true
`),
  );
  const text = problems.join('\n');
  for (const field of [
    'backends.Bad_Name',
    'backends.files.command',
    'backends.files.timeoutMs',
    'backends.web.url',
    'backends.web.color',
    'backends.docs.url: environment variable MISSING_TOKEN',
    'rateLimit.ratePerSecond',
    'extra',
  ]) {
    assert.ok(text.includes(field), `${field} in:\n${text}`);
  }
});

test('out-of-range environment values are errors, not silent defaults', () => {
  const problems = problemsOf(() =>
    load(minimal, {
      DOCS_TOKEN: 'x',
      CENTRALMCP_ROUTER_RESPONSE_MAX_BYTES: '100',
      CENTRALMCP_ROUTER_BATCH_RESPONSE_MAX_BYTES: '1000',
      CENTRALMCP_ROUTER_CURSOR_TTL_SECONDS: '5',
      CENTRALMCP_ROUTER_PORT: 'eighty',
      CENTRALMCP_ROUTER_LOG_LEVEL: 'loud',
    }),
  );
  assert.equal(problems.length, 5, problems.join('\n'));
});

test('an unreadable or unparsable file is a config error', () => {
  assert.throws(
    () =>
      loadConfig({ CENTRALMCP_ROUTER_CONFIG: '/nope.yaml' }, () => {
        throw Object.assign(new Error('x'), { code: 'ENOENT' });
      }),
    /ENOENT/,
  );
  assert.match(problemsOf(() => load('backends: [unclosed'))[0], /not valid YAML/);
  assert.match(problemsOf(() => load('backends: {}'))[0], /at least one backend/);
});

test('one message per real problem: the transport is checked first, a bad value gets one line, a missing field says so', () => {
  const backend = (lines: string) => `backends:\n  files:\n${lines}`;
  assert.deepEqual(
    problemsOf(() => load(backend('    transport: stdoi\n    command: node\n'))),
    ['backends.files.transport: must be one of stdio, http, sse (got "stdoi")'],
  );
  assert.deepEqual(
    problemsOf(() => load(backend('    transport: stdio\n    command: node\n    timeoutMs: "abc"\n'))),
    ['backends.files.timeoutMs: timeoutMs must be an integer number'],
  );
  assert.deepEqual(
    problemsOf(() => load(backend('    transport: stdio\n    timeoutMs: 50\n'))),
    ['backends.files.command: is required', 'backends.files.timeoutMs: timeoutMs must not be less than 100'],
  );
  assert.deepEqual(
    problemsOf(() => load(backend('    transport: http\n'))),
    ['backends.files.url: is required'],
  );
});

test('a YAML syntax error comes with its excerpt', () => {
  const problems = problemsOf(() => load('backends:\n  files:\n    transport: stdio\n  - broken\n'));
  assert.equal(problems.length, 1, 'nothing more is said about a file that does not parse');
  const [problem] = problems;
  assert.match(problem, /^\/etc\/router\/config\.yaml: not valid YAML: .*at line 4, column \d+:\n\n.*- broken/s);
});

test('discovery.embeddings: defaults, expanded headers, and no block means no embeddings', () => {
  assert.deepEqual(load(minimal, { DOCS_TOKEN: 't' }).discovery, {});
  const config = load(
    `${minimal}
discovery:
  embeddings:
    url: http://ollama:11434/v1/embeddings
    model: nomic-embed-text
    headers: { Authorization: "Bearer \${EMBEDDINGS_TOKEN}" }
`,
    { DOCS_TOKEN: 't', EMBEDDINGS_TOKEN: 'e-secret' },
  );
  assert.deepEqual(config.discovery, {
    embeddings: {
      url: 'http://ollama:11434/v1/embeddings',
      model: 'nomic-embed-text',
      headers: { Authorization: 'Bearer e-secret' },
      timeoutMs: 2000,
      batchTimeoutMs: 30_000,
      batchSize: 32,
    },
  });
});

test('discovery.embeddings: every wrong field is named', () => {
  const problems = problemsOf(() =>
    load(
      `${minimal}
discovery:
  embeddings:
    url: ollama:11434
    headers: { Authorization: { nested: true } }
    timeoutMs: 0
    batchSize: 5000
    dimensions: 3
`,
      { DOCS_TOKEN: 't' },
    ),
  );
  for (const field of ['url', 'model', 'timeoutMs', 'batchSize', 'dimensions']) {
    assert.ok(
      problems.some((p) => p.startsWith(`discovery.embeddings.${field}:`)),
      `${field} in ${problems.join(' | ')}`,
    );
  }
  assert.ok(
    problemsOf(() =>
      load(`${minimal}\ndiscovery:\n  embeddings:\n    url: http://x/v1/embeddings\n    model: m\n    headers: { A: [1] }\n`, { DOCS_TOKEN: 't' }),
    ).includes('discovery.embeddings.headers.A: must be a string'),
  );
  assert.ok(
    problemsOf(() =>
      load(`${minimal}\ndiscovery:\n  embeddings:\n    url: http://x/v1/embeddings\n    model: m\n    headers: { A: "\${NOPE}" }\n`, { DOCS_TOKEN: 't' }),
    ).some((p) => p.includes('NOPE')),
  );
});

test('rateLimit.store: memory by default; redis with its url, defaults and failure policy', () => {
  assert.deepEqual(load(minimal, { DOCS_TOKEN: 'x' }).rateLimitStore, { kind: 'memory' });
  const config = load(
    `${minimal}
rateLimit:
  ratePerSecond: 8
  burst: 8
  store: redis
  redis: { url: "\${REDIS_URL}", fail: closed, replicas: 3 }
`,
    { DOCS_TOKEN: 'x', REDIS_URL: 'rediss://router:s3cret@redis.internal:6380/0' },
  );
  assert.deepEqual(config.rateLimit, { ratePerSecond: 8, burst: 8, maxWaitMs: 10_000 });
  assert.deepEqual(config.rateLimitStore, {
    kind: 'redis',
    url: 'rediss://router:s3cret@redis.internal:6380/0',
    keyPrefix: 'centralmcp-router:{rate-limit}:',
    connectTimeoutMs: 2_000,
    commandTimeoutMs: 250,
    fail: 'closed',
    replicas: 3,
  });
  // The block may choose the store alone: no global bucket then.
  const storeOnly = load(`${minimal}\nrateLimit: { store: redis, redis: { url: "redis://127.0.0.1:6379" } }\n`, { DOCS_TOKEN: 'x' });
  assert.equal(storeOnly.rateLimit, undefined);
  assert.equal(storeOnly.rateLimitStore?.kind, 'redis');
});

test('rateLimit.store problems name their field and never echo the URL', () => {
  const problems = problemsOf(() =>
    load(
      `${minimal}
rateLimit:
  ratePerSecond: 5
  store: redis
  redis: { url: "http://user:hunter2@redis:6379", fail: maybe, replicas: 0, commandTimeoutMs: 5 }
`,
      { DOCS_TOKEN: 'x' },
    ),
  );
  const text = problems.join('\n');
  for (const field of ['rateLimit.burst', 'rateLimit.redis.url', 'rateLimit.redis.fail', 'rateLimit.redis.replicas', 'rateLimit.redis.commandTimeoutMs']) {
    assert.ok(text.includes(field), `${field} in:\n${text}`);
  }
  assert.ok(!text.includes('hunter2'), text);
  assert.match(problemsOf(() => load(`${minimal}\nrateLimit: { store: redis }\n`, { DOCS_TOKEN: 'x' })).join('\n'), /rateLimit\.redis: required/);
  assert.match(
    problemsOf(() => load(`${minimal}\nrateLimit: { redis: { url: "redis://r:6379" } }\n`, { DOCS_TOKEN: 'x' })).join('\n'),
    /rateLimit\.redis: applies only with rateLimit\.store: redis/,
  );
  assert.match(problemsOf(() => load(`${minimal}\nrateLimit: { maxWaitMs: 500 }\n`, { DOCS_TOKEN: 'x' })).join('\n'), /rateLimit\.maxWaitMs/);
});

test('trust: the pins file is relative to the config file, and a bad mode is named', () => {
  const env = { DOCS_TOKEN: 't' };
  const config = load(`${minimal}trust:\n  pinsFile: pins.json\n  relistSeconds: 30\n`, env);
  assert.deepEqual(config.trust, { mode: 'enforce', pinsFile: '/etc/router/pins.json', approveNewBackends: false, relistSeconds: 30 });
  assert.equal(load(minimal, env).trust?.mode, 'off');
  const problems = problemsOf(() => load(`${minimal}trust:\n  mode: strict\n`, env));
  assert.ok(
    problems.some((p) => p.startsWith('trust.mode')),
    problems.join('; '),
  );
});

test('publish: meta and 128 by default; direct or both when set; a bad mode or limit is named', () => {
  const base = 'backends:\n  a:\n    transport: stdio\n    command: node\n';
  assert.deepEqual(load(base).publish, { mode: 'meta', maxDirectTools: 128 });
  assert.deepEqual(load(`${base}publish:\n  mode: both\n`).publish, { mode: 'both', maxDirectTools: 128 });
  assert.deepEqual(load(`${base}publish:\n  mode: direct\n  maxDirectTools: 40\n`).publish, { mode: 'direct', maxDirectTools: 40 });
  const bad = problemsOf(() => load(`${base}publish:\n  mode: all\n  maxDirectTools: 0\n  extra: 1\n`));
  for (const field of ['publish.mode', 'publish.maxDirectTools', 'publish.extra']) {
    assert.ok(
      bad.some((p) => p.startsWith(field)),
      `${field}: ${bad.join('\n')}`,
    );
  }
});

test('a loaded config names its file and whether to watch it, so a reload can read it again', () => {
  assert.deepEqual(load(minimal, { DOCS_TOKEN: 't' }).source, { path: '/etc/router/config.yaml', watch: false });
  assert.deepEqual(load(minimal, { DOCS_TOKEN: 't', CENTRALMCP_ROUTER_WATCH_CONFIG: 'true' }).source, { path: '/etc/router/config.yaml', watch: true });
});

test('discovery.learning: off by default; defaults; a file path relative to the config; redis on the rate limits’ Redis', () => {
  const env = { DOCS_TOKEN: 'x' };
  assert.equal(load(minimal, env).discovery?.learning, undefined);
  assert.equal(load(`${minimal}\ndiscovery: { learning: { enabled: false, store: memory } }\n`, env).discovery?.learning, undefined);
  assert.deepEqual(load(`${minimal}\ndiscovery: { learning: { enabled: true } }\n`, env).discovery?.learning, {
    enabled: true,
    minPrincipals: 3,
    windowSeconds: 120,
    halfLifeHours: 168,
    maxAssociations: 100_000,
    store: { kind: 'memory' },
  });
  const file = load(`${minimal}\ndiscovery: { learning: { enabled: true, store: file, path: learned.json, minPrincipals: 5 } }\n`, env).discovery?.learning;
  assert.deepEqual(file?.store, { kind: 'file', path: '/etc/router/learned.json' });
  assert.equal(file?.minPrincipals, 5);
  const redis = load(
    `${minimal}\nrateLimit: { store: redis, redis: { url: "redis://127.0.0.1:6379" } }\ndiscovery: { learning: { enabled: true, store: redis } }\n`,
    env,
  );
  assert.equal(redis.discovery?.learning?.store.kind, 'redis');
  assert.equal((redis.discovery?.learning?.store as { keyPrefix: string }).keyPrefix, 'centralmcp-router:{learning}:');
});

test('discovery.learning problems name their field', () => {
  const env = { DOCS_TOKEN: 'x' };
  assert.deepEqual(
    problemsOf(() => load(`${minimal}\ndiscovery: { learning: { enabled: true, store: redis } }\n`, env)),
    ['discovery.learning.store: redis needs rateLimit.store: redis (the same Redis is used)'],
  );
  const problems = problemsOf(() => load(`${minimal}\ndiscovery: { learning: { enabled: true, store: disk, minPrincipals: 0 } }\n`, env));
  assert.equal(problems.length, 2, problems.join('\n'));
  assert.ok(problems.some((p) => p.startsWith('discovery.learning.store')));
  assert.ok(problems.some((p) => p.startsWith('discovery.learning.minPrincipals')));
  assert.ok(
    problemsOf(() => load(`${minimal}\ndiscovery: { learning: { enabled: true, store: file } }\n`, env)).some((p) => p.startsWith('discovery.learning.path')),
  );
});

test('stdio: the principal of the stdio front end, groups default to none; absent, no block', () => {
  assert.equal(load(minimal, { DOCS_TOKEN: 't' }).stdio, undefined);
  assert.deepEqual(load(`${minimal}\nstdio: { principal: alice }\n`, { DOCS_TOKEN: 't' }).stdio, { principal: 'alice', groups: [] });
  assert.deepEqual(load(`${minimal}\nstdio: { principal: alice, groups: [readers] }\n`, { DOCS_TOKEN: 't' }).stdio, {
    principal: 'alice',
    groups: ['readers'],
  });
  const problems = problemsOf(() => load(`${minimal}\nstdio: { principal: "not a name", groups: [""], extra: 1 }\n`, { DOCS_TOKEN: 't' }));
  assert.ok(
    problems.some((p) => p.startsWith('stdio.principal')),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => p.startsWith('stdio.groups')),
    problems.join('\n'),
  );
  assert.ok(
    problems.some((p) => p.includes('stdio.extra')),
    problems.join('\n'),
  );
});

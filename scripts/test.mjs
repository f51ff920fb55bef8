#!/usr/bin/env node
/**
 * Runs the compiled test suite (`dist-test/`, built by `npm run build:test`) by group:
 *
 *   node scripts/test.mjs unit        specs that start no process and no server (npm run test:unit)
 *   node scripts/test.mjs e2e         everything else (npm run test:e2e)
 *   node scripts/test.mjs unit e2e    both, one after the other (npm test)
 *   node scripts/test.mjs bench       smoke runs of the benchmarks (npm run test:bench)
 *
 * Options: `--failures FILE` appends one JSON line per failed test to FILE (the stress runner
 * reads them); any argument ending in `.js` or `.ts` narrows a group to those files.
 *
 * Tests run on the node that runs this script (`process.execPath`), and so do the routers and
 * fixtures they start: `.ci/run` runs it once more on Node 22.
 *
 * A spec runs only while its TypeScript source exists: `dist-test/` is built incrementally, so a
 * spec that was moved or deleted leaves a stale compiled copy behind, which must not run.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BUILD = join(ROOT, 'dist-test');

/**
 * Specs beside the code that start a process or open a loopback socket: a real MCP server, Redis,
 * an HTTP client against a local server, a script. They are no unit specs by the definition
 * above, so they run with the e2e group. The unit group's guard (test/support/unit-guard.ts)
 * fails any spec that starts a process or a server and is neither listed here nor named
 * `*.e2e-spec.ts`, so a spec that is moved or renamed without this list is caught, not misfiled.
 */
const SOCKET_SPECS = new Set([
  'backends.service.spec.js',
  'backend-channel.spec.js',
  'stdio-process.transport.spec.js',
  'stdio-requests.spec.js',
  'http-call-client.spec.js',
  'remote-transport.spec.js',
  'http-client.transport.spec.js',
  'embeddings.client.spec.js',
  'embeddings.service.spec.js',
  'lexicon.spec.js',
  'metrics.service.spec.js',
  'redis-bucket.store.spec.js',
  'request-context.hook.spec.js',
]);

/**
 * Per test file (node 20 applies --test-timeout to a whole file and stops it with SIGTERM).
 * Ceilings, not expectations: a unit file takes seconds, the longest e2e file about a minute on
 * an idle machine; beside CPU hogs several times that.
 */
const GROUPS = {
  unit: { timeoutMs: 300_000, preload: 'test/support/unit-guard.js', select: (f) => isSpec(f) && !SOCKET_SPECS.has(basename(f)) },
  e2e: {
    timeoutMs: 1_200_000,
    preload: 'test/support/reap-on-exit.js',
    select: (f) => f.endsWith('.e2e-spec.js') || (isSpec(f) && SOCKET_SPECS.has(basename(f))),
  },
  bench: { timeoutMs: 1_800_000, preload: 'test/support/reap-on-exit.js', select: (f) => f.endsWith('.bench-spec.js') },
};

function isSpec(file) {
  return file.endsWith('.spec.js') && !file.endsWith('.e2e-spec.js') && !file.endsWith('.bench-spec.js');
}

/** Compiled spec files under dist-test/src and dist-test/test whose .ts source still exists. */
function compiledSpecs() {
  const found = [];
  const walk = (dir) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'fixtures' && entry.name !== 'support') walk(path);
      } else if (entry.name.endsWith('spec.js') && existsSync(join(ROOT, relative(BUILD, path)).replace(/\.js$/, '.ts'))) {
        found.push(path);
      }
    }
  };
  walk(join(BUILD, 'src'));
  walk(join(BUILD, 'test'));
  return found.sort();
}

function parseArgs(argv) {
  const groups = [];
  const only = [];
  let failures;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--failures') failures = resolve(argv[++i]);
    else if (arg in GROUPS) groups.push(arg);
    else if (/\.(js|ts)$/.test(arg)) only.push(basename(arg).replace(/\.ts$/, '.js'));
    else throw new Error(`unknown argument ${arg}: expected ${Object.keys(GROUPS).join(', ')}, --failures FILE or spec file names`);
  }
  if (groups.length === 0) throw new Error(`name a group: ${Object.keys(GROUPS).join(', ')}`);
  return { groups, only, failures };
}

function run(group, files, failures) {
  const { timeoutMs, preload } = GROUPS[group];
  const args = [
    '--test',
    '--test-concurrency=2',
    `--test-timeout=${timeoutMs}`,
    // Once a file's tests are done its process exits, even if something still holds the event
    // loop; the preload then stops whatever the file started.
    '--test-force-exit',
    '--require',
    join(BUILD, preload),
    ...(failures
      ? [
          '--test-reporter=spec',
          '--test-reporter-destination=stdout',
          `--test-reporter=${join(ROOT, 'scripts', 'failures-reporter.mjs')}`,
          `--test-reporter-destination=${failures}`,
        ]
      : []),
    ...files,
  ];
  process.stdout.write(`# ${group}: ${files.length} files on node ${process.version}\n`);
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: 'inherit' });
    const forward = (signal) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolvePromise(code ?? (signal ? 1 : 0));
    });
  });
}

const { groups, only, failures } = parseArgs(process.argv.slice(2));
if (!existsSync(join(BUILD, 'test', 'support', 'unit-guard.js'))) {
  process.stderr.write('dist-test/ is not built: run `npm run build:test` first (npm test does).\n');
  process.exit(1);
}
const specs = compiledSpecs();
let failed = false;
for (const group of groups) {
  const files = specs.filter((f) => GROUPS[group].select(f) && (only.length === 0 || only.includes(basename(f))));
  if (files.length === 0) {
    if (only.length > 0) continue;
    process.stderr.write(`# ${group}: no compiled spec found under ${BUILD}\n`);
    failed = true;
    continue;
  }
  if ((await run(group, files, failures)) !== 0) failed = true;
}
process.exit(failed ? 1 : 0);

#!/usr/bin/env node
/**
 * The stress runner (`npm run test:stress [-- N [spec files…]]`): runs the unit and e2e suites N
 * times (default 3, or STRESS_RUNS) beside two CPU hogs, the load of a shared 2-core machine, then lists every
 * test that failed at least once and in how many runs, and any process a run left behind. Exits 1
 * if anything failed or was left running. dist-test/ must be built (npm run test:stress builds it).
 *
 * Each run's full output is kept in a folder of its own (printed at the start), beside the JSON
 * lines of its failures. Spec file names after N narrow the runs to those files (a suspected flaky
 * test, run many times).
 */
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BUILD = join(ROOT, 'dist-test');
const runs = Number(process.argv[2] ?? process.env.STRESS_RUNS ?? 3);
const only = process.argv.slice(3);
if (!Number.isInteger(runs) || runs < 1) {
  process.stderr.write(`usage: node scripts/test-stress.mjs [runs], got ${process.argv[2]}\n`);
  process.exit(2);
}
const out = mkdtempSync(join(tmpdir(), 'centralmcp-stress-'));

/** Two busy loops, each a process of its own: two CPU-bound neighbours on the box. */
const hogs = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const stopHogs = () => {
  for (const hog of hogs) if (hog.exitCode === null && hog.signalCode === null) hog.kill('SIGKILL');
};
process.on('exit', stopHogs);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    stopHogs();
    process.exit(130);
  });
}

/** Pids of the living processes now. */
function pids() {
  return new Set(
    readdirSync('/proc')
      .filter((e) => /^\d+$/.test(e))
      .map(Number),
  );
}

/**
 * Processes started during a run that run code of this repository (its build, its fixtures, the
 * MCP servers in its node_modules) and are still alive after it: what a run left behind. The run's
 * own processes are gone by then, so anything found here escaped its test file. Processes of the
 * benchmarks (`dist/`, and earlier builds in `.tmp/`) are no test's: a bench run beside the stress
 * runner is neither counted nor killed.
 */
const NOT_TESTS = [join(ROOT, 'dist') + '/', join(ROOT, '.tmp') + '/'];

function leftovers(before) {
  const found = [];
  for (const pid of pids()) {
    if (before.has(pid) || pid === process.pid || hogs.some((h) => h.pid === pid)) continue;
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
      if (state !== 'Z' && cmdline.includes(ROOT) && !NOT_TESTS.some((dir) => cmdline.includes(dir))) found.push({ pid, cmdline: cmdline.slice(0, 200) });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

function runOnce(i) {
  const log = join(out, `run-${i}.log`);
  const failures = join(out, `run-${i}.failures.jsonl`);
  const started = Date.now();
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts', 'test.mjs'), 'unit', 'e2e', ...only, '--failures', failures], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const sink = createWriteStream(log);
    child.stdout.pipe(sink, { end: false });
    child.stderr.pipe(sink, { end: false });
    child.on('exit', (code) => {
      sink.end();
      const failed = existsSync(failures)
        ? readFileSync(failures, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((line) => JSON.parse(line))
        : [];
      resolvePromise({ code, seconds: Math.round((Date.now() - started) / 1000), failed, log });
    });
  });
}

process.stdout.write(`# stress: ${runs} runs of npm test's suites beside two CPU hogs; logs in ${out}\n`);
const results = [];
for (let i = 1; i <= runs; i++) {
  const before = pids();
  const result = await runOnce(i);
  const left = leftovers(before);
  for (const { pid } of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  results.push({ ...result, left });
  process.stdout.write(`# run ${i}: exit ${result.code} in ${result.seconds} s, ${result.failed.length} failed, ${left.length} processes left running\n`);
}
stopHogs();

const byTest = new Map();
for (const [i, { failed }] of results.entries()) {
  for (const f of failed) {
    const key = `${(f.file ?? '?').replace(`${BUILD}/`, '')} > ${f.name}`;
    const entry = byTest.get(key) ?? { runs: new Set(), errors: new Set() };
    entry.runs.add(i + 1);
    if (f.error) entry.errors.add(f.error);
    byTest.set(key, entry);
  }
}
process.stdout.write(`\n# tests that failed at least once (${byTest.size}):\n`);
for (const [key, { runs: inRuns, errors }] of [...byTest].sort((a, b) => b[1].runs.size - a[1].runs.size)) {
  process.stdout.write(`${inRuns.size}/${runs}  ${key}\n`);
  for (const error of [...errors].slice(0, 3)) process.stdout.write(`       ${error}\n`);
}
const leftTotal = results.reduce((n, r) => n + r.left.length, 0);
if (leftTotal > 0) {
  process.stdout.write(`\n# processes left running after a run (${leftTotal}):\n`);
  for (const [i, { left }] of results.entries()) for (const p of left) process.stdout.write(`run ${i + 1}: ${p.pid} ${p.cmdline}\n`);
}
const red = results.filter((r) => r.code !== 0).length;
process.stdout.write(`\n# ${runs - red} of ${runs} runs passed; logs in ${out}\n`);
process.exit(red > 0 || byTest.size > 0 || leftTotal > 0 ? 1 : 0);

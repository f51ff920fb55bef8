import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { requireCommand } from './support/prerequisites';
import { stopDescendantsOnExit } from './support/reaper';

stopDescendantsOnExit();

/**
 * A smoke run of `npm run bench:instructions`, so the instruction counts cannot rot unnoticed: the
 * router under valgrind's callgrind, each row warmed up briefly and counted over one short window,
 * read as an operator reads it (the table on stdout, the JSON beside it). Minutes under valgrind,
 * not a measurement, and a proof that the bench runs rather than that the router works: so it is
 * part of `npm run test:bench` (run by `.ci/run`), not of `npm test`. Needs valgrind on PATH.
 */
const BENCH = join(__dirname, '..', 'bench', 'instructions.js');

test('bench:instructions counts the router under callgrind, every row', { timeout: 1_800_000 }, async () => {
  requireCommand('valgrind');
  const env = { ...process.env, BENCH_INSTR_WINDOWS: '1', BENCH_INSTR_CALLS: '8', BENCH_INSTR_WARMUP: '50' };
  // No timeout of its own: the test's bounds it, and when this file's process ends, whatever it
  // started ends with it (valgrind and the router under it included, test/support/reaper.ts).
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, [BENCH], { env, maxBuffer: 4 * 1024 * 1024 }, (err, out, errText) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout: out, stderr: errText }),
    );
    child.stdin?.end();
  });
  assert.equal(code, 0, `exit ${code}: ${stderr.slice(-2000)}`);
  const rows = stdout.split('\n').filter((line) => /^\| (HTTP|stdio), /.test(line));
  assert.deepEqual(
    rows.map((line) => line.split('|')[1].trim()),
    ['HTTP, single call', 'HTTP, batch of 25, per entry', 'stdio, single call', 'stdio, batch of 25, per entry'],
  );
  const written = JSON.parse(readFileSync(join(__dirname, '..', 'bench', 'instructions.json'), 'utf8')) as { results: { counts: number[][] }[] };
  const counts = written.results[0].counts.map((windows) => windows[0]);
  // Parsing a request, the seam and a backend round trip take far more than 10,000 instructions,
  // and nothing the router does per call takes 100 million: a count outside is a broken count.
  for (const count of counts) assert.ok(count > 10_000 && count < 100_000_000, `instructions per call: ${count}`);
  // A batch shares one request's cost among its entries.
  assert.ok(counts[1] < counts[0] && counts[3] < counts[2], `per entry below per single call: ${counts.join(', ')}`);
});

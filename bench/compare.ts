/**
 * `npm run bench:compare -- <git ref> [pairs]`: the router CPU per single call and per batch entry
 * of this tree against an earlier commit's, measured side by side in one run.
 *
 * Two runs of the same build on this 2-core machine differ by ±15% in router CPU per call, so one
 * run of each build cannot show a 10% change either way. Here each pair starts both routers fresh,
 * one after the other, in alternating order (ABBA), against the same null backends and the same
 * load generator, and each row reports the median of the per-pair ratios: machine drift between
 * pairs cancels out of a ratio taken within one pair.
 *
 * The earlier commit is exported with `git archive` into `.tmp/compare-<sha>/` (kept for the next
 * run), given this tree's node_modules and lexicon by symlink, and compiled with its own bench
 * tsconfig; its `bench/router-child.ts` must speak the harness's IPC (any commit since issue 5).
 *
 * Environment (optional): BENCH_SECONDS (seconds per row and run, default 3).
 * Writes dist/bench/compare.{json,md}.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, load, machine, median, nullConfig, startNullHttp, startRouter, toolCall } from './harness';

const ROOT = resolve(__dirname, '..', '..');
const OUT = resolve(__dirname);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

interface Row {
  name: string;
  server: 'null' | 'nullstdio';
  shape: 'single' | 'batch';
  connections: number;
}

/** The single-call and batch-entry rows of `npm run bench` (sections 1 and 2). */
const ROWS: Row[] = (['null', 'nullstdio'] as const).flatMap((server) =>
  [1, 16].flatMap((connections) =>
    (['single', 'batch'] as const).map((shape) => ({
      name: `${server === 'null' ? 'HTTP' : 'stdio'}, ${shape === 'single' ? 'single call' : 'batch of 25, per entry'}, ${connections} conn${connections > 1 ? 's' : ''}`,
      server,
      shape,
      connections,
    })),
  ),
);

const bodyOf = (row: Row) =>
  row.shape === 'single'
    ? toolCall('invoke_read_tool', { name: 'fast', server: row.server })
    : toolCall('invoke_read_tool_batch', { calls: Array.from({ length: 25 }, () => ({ name: 'fast', server: row.server })) });
const okBody = (body: string) => body.includes('"status":"ok"') || body.includes('"failed":0');

/** The earlier commit, exported and compiled once; returns its router-child.js. */
function buildBaseline(ref: string): { sha: string; routerChild: string } {
  const sha = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = join(ROOT, '.tmp', `compare-${sha.slice(0, 12)}`);
  const routerChild = join(dir, 'dist', 'bench', 'router-child.js');
  if (existsSync(routerChild)) return { sha, routerChild };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'data'), { recursive: true });
  execFileSync('sh', ['-c', `git archive ${sha} | tar -x -C "${dir}"`], { cwd: ROOT, stdio: 'inherit' });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  if (!existsSync(join(dir, 'data', 'lexicon'))) symlinkSync(join(ROOT, 'data', 'lexicon'), join(dir, 'data', 'lexicon'));
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, 'bench', 'tsconfig.json')], { cwd: dir, stdio: 'inherit' });
  if (!existsSync(routerChild)) throw new Error(`${ref} has no bench/router-child.ts to start its router with`);
  return { sha, routerChild };
}

/** One fresh router of one build: a warm-up, then every row; router CPU µs per tool call by row. */
async function runBuild(dir: string, routerChild: string | undefined): Promise<number[]> {
  const nullPort = await freePort();
  const nul = await startNullHttp(nullPort);
  const router = await startRouter(dir, nullConfig(`http://127.0.0.1:${nullPort}/mcp`), routerChild ? { routerChild } : {});
  try {
    for (const row of [ROWS[0], ROWS[ROWS.length - 1]]) await load({ url: router.url, body: bodyOf(row), connections: 16, durationSeconds: 2 });
    const perCall: number[] = [];
    for (const row of ROWS) {
      const r = await load({ url: router.url, body: bodyOf(row), connections: row.connections, durationSeconds: SECONDS, verify: okBody, watch: { router: router.pid } });
      if (r.failures > 0) throw new Error(`${row.name}: ${r.failures} failed requests`);
      perCall.push(r.cpuPerRequest.router / (row.shape === 'batch' ? 25 : 1));
    }
    return perCall;
  } finally {
    await router.stop();
    await nul.stop();
  }
}

async function main(): Promise<void> {
  const ref = process.argv[2];
  const pairs = Number(process.argv[3] ?? 6);
  if (!ref || !Number.isInteger(pairs) || pairs < 1) {
    process.stderr.write('usage: npm run bench:compare -- <git ref> [pairs, default 6]\n');
    process.exit(2);
  }
  const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
  const baseline = buildBaseline(ref);
  const dir = mkdtempSync(join(tmpdir(), 'centralmcp-compare-'));
  const runs: { tree: number[][]; base: number[][] } = { tree: [], base: [] };
  for (let i = 0; i < pairs; i++) {
    // ABBA: the build that goes second in a pair alternates, so warm caches favour neither.
    if (i % 2 === 0) {
      runs.tree.push(await runBuild(dir, undefined));
      runs.base.push(await runBuild(dir, baseline.routerChild));
    } else {
      runs.base.push(await runBuild(dir, baseline.routerChild));
      runs.tree.push(await runBuild(dir, undefined));
    }
    process.stderr.write(`pair ${i + 1} of ${pairs} done\n`);
  }
  rmSync(dir, { recursive: true, force: true });

  const rows = ROWS.map((row, r) => {
    const ratios = runs.tree.map((t, i) => t[r] / runs.base[i][r]).sort((a, b) => a - b);
    return {
      row: row.name,
      baseMedianUs: median(runs.base.map((b) => b[r])),
      treeMedianUs: median(runs.tree.map((t) => t[r])),
      ratioMedian: median(ratios),
      ratioMin: ratios[0],
      ratioMax: ratios[ratios.length - 1],
      pairsSlower: ratios.filter((x) => x > 1).length,
    };
  });
  const lines = [
    `# Router CPU: this tree (${head}${dirty ? ', with uncommitted changes' : ''}) against ${ref} (${baseline.sha.slice(0, 12)})`,
    '',
    `${pairs} pairs, ${SECONDS} s per row and run, each router fresh; load average at the end ${machine().loadAtStart.map((l) => l.toFixed(2)).join(' ')}.`,
    '',
    '| row | before µs | after µs | after/before, median of pairs | range of pairs | pairs slower |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map((x) => `| ${x.row} | ${Math.round(x.baseMedianUs)} | ${Math.round(x.treeMedianUs)} | ${x.ratioMedian.toFixed(3)} | ${x.ratioMin.toFixed(2)}–${x.ratioMax.toFixed(2)} | ${x.pairsSlower} of ${pairs} |`),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  writeFileSync(join(OUT, 'compare.md'), `${lines.join('\n')}\n`);
  writeFileSync(join(OUT, 'compare.json'), JSON.stringify({ head, dirty, baseline, pairs, seconds: SECONDS, machine: machine(), rows, runs }, null, 2));
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);

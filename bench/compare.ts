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
 * The earlier commit is exported and compiled by `buildAt` (bench/builds.ts).
 *
 * Environment (optional): BENCH_SECONDS (seconds per row and run, default 3); BENCH_ROWS (a
 * `;`-separated list of phrases: only the rows whose name holds one of them, e.g. `stdio` or
 * `stdio, single call, 16 conns;HTTP, single call`). Writes dist/bench/compare.{json,md}.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildAt, headOfTree } from './builds';
import { BATCH_SIZE, bodyOf, okBody, ROWS } from './call-rows';
import { freePort, load, machine, median, nullConfig, startNullHttp, startRouter } from './harness';

const OUT = resolve(__dirname);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const PICKED = (process.env.BENCH_ROWS ?? '')
  .split(';')
  .map((phrase) => phrase.trim())
  .filter((phrase) => phrase !== '');
const CHOSEN = PICKED.length === 0 ? ROWS : ROWS.filter((row) => PICKED.some((phrase) => row.name.includes(phrase)));

/** Router CPU µs per tool call and median latency (ms) per request of one build, by row. */
interface BuildRun {
  cpu: number[];
  p50: number[];
}

/** One fresh router of one build: a warm-up, then every chosen row. */
async function runBuild(dir: string, routerChild: string | undefined): Promise<BuildRun> {
  const nullPort = await freePort();
  const nul = await startNullHttp(nullPort);
  const router = await startRouter(dir, nullConfig(`http://127.0.0.1:${nullPort}/mcp`), routerChild ? { routerChild } : {});
  try {
    for (const row of [CHOSEN[0], CHOSEN[CHOSEN.length - 1]]) await load({ url: router.url, body: bodyOf(row), connections: 16, durationSeconds: 2 });
    const run: BuildRun = { cpu: [], p50: [] };
    for (const row of CHOSEN) {
      const r = await load({
        url: router.url,
        body: bodyOf(row),
        connections: row.connections,
        durationSeconds: SECONDS,
        verify: okBody,
        watch: { router: router.pid },
      });
      if (r.failures > 0) throw new Error(`${row.name}: ${r.failures} failed requests`);
      run.cpu.push(r.cpuPerRequest.router / (row.shape === 'batch' ? BATCH_SIZE : 1));
      run.p50.push(r.p50);
    }
    return run;
  } finally {
    await router.stop();
    await nul.stop();
  }
}

async function main(): Promise<void> {
  const ref = process.argv[2];
  const pairs = Number(process.argv[3] ?? 6);
  if (!ref || !Number.isInteger(pairs) || pairs < 1 || CHOSEN.length === 0) {
    process.stderr.write('usage: npm run bench:compare -- <git ref> [pairs, default 6]\n');
    process.exit(2);
  }
  const loadBefore = machine().loadAtStart;
  const { head, dirty } = headOfTree();
  const baseline = buildAt(ref);
  const dir = mkdtempSync(join(tmpdir(), 'centralmcp-compare-'));
  const runs: { tree: BuildRun[]; base: BuildRun[] } = { tree: [], base: [] };
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

  const rows = CHOSEN.map((row, r) => {
    const ratios = runs.tree.map((t, i) => t.cpu[r] / runs.base[i].cpu[r]).sort((a, b) => a - b);
    return {
      row: row.name,
      baseMedianUs: median(runs.base.map((b) => b.cpu[r])),
      treeMedianUs: median(runs.tree.map((t) => t.cpu[r])),
      ratioMedian: median(ratios),
      ratioMin: ratios[0],
      ratioMax: ratios[ratios.length - 1],
      pairsSlower: ratios.filter((x) => x > 1).length,
      p50RatioMedian: median(runs.tree.map((t, i) => t.p50[r] / runs.base[i].p50[r])),
    };
  });
  const lines = [
    `# Router CPU: this tree (${head}${dirty ? ', with uncommitted changes' : ''}) against ${ref} (${baseline.sha.slice(0, 12)})`,
    '',
    `${pairs} pairs, ${SECONDS} s per row and run, each router fresh; load average at the start ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, at the end ${machine()
      .loadAtStart.map((l) => l.toFixed(2))
      .join(' ')}.`,
    '',
    '| row | before µs | after µs | after/before, median of pairs | range of pairs | pairs slower | median latency after/before |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (x) =>
        `| ${x.row} | ${Math.round(x.baseMedianUs)} | ${Math.round(x.treeMedianUs)} | ${x.ratioMedian.toFixed(3)} | ${x.ratioMin.toFixed(2)}–${x.ratioMax.toFixed(2)} | ${x.pairsSlower} of ${pairs} | ${x.p50RatioMedian.toFixed(3)} |`,
    ),
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

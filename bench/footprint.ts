/**
 * `npm run bench:footprint -- <git ref>`: this tree's resident memory and CPU per call beside an
 * earlier commit's (exported and compiled by `buildAt`, bench/builds.ts), in alternating rounds.
 *
 * `npm run bench:footprint` (no ref): what a young generation kept at its initial 2 MiB would save in
 * resident memory and cost in GC work, side by side in one run: the router as built (V8's own
 * young generation, two semi-spaces growing to 16 MiB each) beside the same build with the young
 * generation fixed (BENCH_YOUNG_GENERATION=fixed, bench/young-generation-choice.ts), what an
 * operator gets with `NODE_OPTIONS=--max-semi-space-size=1` (README, "Footprint"). Rounds alternate the order of the two, so drift of the
 * machine hits both alike. Each round, for each: a fresh router in front of the null backends,
 * RSS after boot and after 200 warm-up calls, then CPU per call (user + system of the router
 * process, every thread, the GC's helper threads included) over the same mixed load, and RSS after it.
 *
 * Environment (optional): BENCH_FOOTPRINT_ROUNDS (default 3), BENCH_FOOTPRINT_CALLS (calls per
 * load, default 20000). Writes dist/bench/footprint.{md,json}.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildAt, headOfTree } from './builds';
import { freePort, load, loadAverages, machine, median, nullConfig, rssBytes, startNullHttp, startRouter, toolCall, type Proc } from './harness';

const ROUNDS = Number(process.env.BENCH_FOOTPRINT_ROUNDS ?? 3);
const CALLS = Number(process.env.BENCH_FOOTPRINT_CALLS ?? 20_000);

interface Variant {
  name: string;
  env: Record<string, string>;
  /** Another build's bench/router-child.js; this tree's when absent. */
  routerChild?: string;
}

/** The two routers compared, the one measured against second: a ref's build, or the young generation choice. */
function variants(ref: string | undefined): [Variant, Variant] {
  if (ref === undefined) {
    return [
      { name: "V8's default young generation (as built)", env: {} },
      { name: 'young generation kept at 2 MiB', env: { BENCH_YOUNG_GENERATION: 'fixed' } },
    ];
  }
  const { head, dirty } = headOfTree();
  const base = buildAt(ref);
  return [
    { name: `this tree (${head}${dirty ? ', modified' : ''})`, env: {} },
    { name: `${ref} (${base.sha.slice(0, 12)})`, env: {}, routerChild: base.routerChild },
  ];
}

interface Figures {
  rssBootMiB: number;
  rssWarmMiB: number;
  rssLoadedMiB: number;
  cpuMicrosPerCall: number;
  callsPerSecond: number;
}

const report: string[] = [];
function say(line = ''): void {
  report.push(line);
  process.stdout.write(`${line}\n`);
}
const MiB = (bytes: number) => bytes / 2 ** 20;

const BODIES = [
  toolCall('invoke_read_tool', { name: 'fast', server: 'null' }, 1),
  toolCall('invoke_read_tool', { name: 'fast', server: 'nullstdio' }, 2),
  toolCall(
    'invoke_read_tool_batch',
    {
      calls: [
        { name: 'fast', server: 'null' },
        { name: 'fast', server: 'nullstdio' },
      ],
    },
    3,
  ),
];

async function measure(dir: string, nullUrl: string, variant: Variant): Promise<Figures> {
  const router = await startRouter(dir, nullConfig(nullUrl), { env: variant.env, ...(variant.routerChild ? { routerChild: variant.routerChild } : {}) });
  try {
    await sleep(2000);
    const rssBoot = rssBytes(router.pid);
    await load({ url: router.url, bodies: BODIES, connections: 1, amount: 200 });
    const rssWarm = rssBytes(router.pid);
    const result = await load({ url: router.url, bodies: BODIES, connections: 16, amount: CALLS, watch: { router: router.pid } });
    return {
      rssBootMiB: MiB(rssBoot),
      rssWarmMiB: MiB(rssWarm),
      rssLoadedMiB: MiB(rssBytes(router.pid)),
      cpuMicrosPerCall: result.cpuPerRequest.router,
      callsPerSecond: result.requestsPerSecond,
    };
  } finally {
    await router.stop();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-footprint-'));
  const nullPort = await freePort();
  const nul: Proc = await startNullHttp(nullPort);
  const ref = process.argv[2];
  const VARIANTS = variants(ref);
  const rows = new Map<string, Figures[]>(VARIANTS.map((v) => [v.name, []]));
  const m = machine();
  say(`# Footprint: ${VARIANTS[0].name} beside ${VARIANTS[1].name}, ${ROUNDS} rounds of ${CALLS.toLocaleString('en-US')} calls`);
  say();
  say(`Machine: ${m.cores} × ${m.cpu}, Node ${m.node}; load average at start ${loadAverages(' / ')}.`);
  say();
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
      for (const v of order) {
        process.stderr.write(`round ${round + 1}: ${v.name}\n`);
        rows.get(v.name)!.push(await measure(dir, `http://127.0.0.1:${nullPort}/mcp`, v));
      }
    }
  } finally {
    await nul.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const med = (name: string, pick: (f: Figures) => number) => median(rows.get(name)!.map(pick));
  say('Medians over the rounds (16 connections, singles over HTTP and stdio and batches of two):');
  say();
  say('| router | RSS after boot, MiB | after 200 calls | after the load | CPU µs per call | calls/s |');
  say('|---|---:|---:|---:|---:|---:|');
  for (const v of VARIANTS) {
    say(
      `| ${v.name} | ${med(v.name, (f) => f.rssBootMiB).toFixed(1)} | ${med(v.name, (f) => f.rssWarmMiB).toFixed(1)} | ${med(v.name, (f) => f.rssLoadedMiB).toFixed(1)} | ${Math.round(med(v.name, (f) => f.cpuMicrosPerCall))} | ${Math.round(med(v.name, (f) => f.callsPerSecond))} |`,
    );
  }
  say();
  // Measured ÷ measured against: the second variant over the first for the young generation
  // choice (as before), this tree over the ref's build for a ref.
  const [first, second] = VARIANTS.map((v) => rows.get(v.name)!);
  const [over, under] = ref === undefined ? [second, first] : [first, second];
  const ratios = over.map((f, i) => ({
    rssBoot: f.rssBootMiB / under[i].rssBootMiB,
    rss: f.rssWarmMiB / under[i].rssWarmMiB,
    rssLoaded: f.rssLoadedMiB / under[i].rssLoadedMiB,
    cpu: f.cpuMicrosPerCall / under[i].cpuMicrosPerCall,
  }));
  const range = (values: number[]) => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;
  say(
    `${ref === undefined ? 'Fixed ÷ default' : `This tree ÷ ${ref}`}, per round: RSS after boot ${range(ratios.map((r) => r.rssBoot))}, after 200 calls ${range(ratios.map((r) => r.rss))}, after the load ${range(ratios.map((r) => r.rssLoaded))}; CPU per call ${range(ratios.map((r) => r.cpu))} (median ${median(ratios.map((r) => r.cpu)).toFixed(2)}).`,
  );
  say();
  say(`Load average at the end: ${loadAverages(' / ')}.`);
  writeFileSync(join(__dirname, 'footprint.md'), report.join('\n') + '\n');
  writeFileSync(
    join(__dirname, 'footprint.json'),
    JSON.stringify({ machine: m, ref, rounds: ROUNDS, calls: CALLS, rows: Object.fromEntries(rows), ratios }, null, 2),
  );
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

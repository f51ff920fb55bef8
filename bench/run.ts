/**
 * `npm run bench`: the router's five measurements (BENCHMARKS.md) in one run, side by side, each the median of
 * several runs, against the targets. Writes dist/bench/last-run.{json,md}.
 *
 * Environment (all optional): BENCH_RUNS (runs per figure, default 3), BENCH_SECONDS (seconds per
 * run, default 5), BENCH_HEAP_CALLS (calls of the heap-slope run, default 200000), BENCH_ONLY
 * (comma list of sections: ceiling,batch,find,embeddings,heap,isolation,redis,tracing,profile), BENCH_QUICK=1 (a smoke run:
 * one short run of everything, small heap run).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { toCatalogTools } from '../src/backends/domain/catalog';
import { searchTools } from '../src/discovery/domain/ranking';
import { buildToolIndex } from '../src/discovery/domain/tool-index';
import { indexByName } from '../src/registry/domain/resolve';
import { Logger } from '@nestjs/common';
import { EmbeddingsService } from '../src/discovery/embeddings.service';
import { ToolSearchService } from '../src/discovery/tool-search.service';
import { RegistryService } from '../src/registry/registry.service';
import { startEmbeddingsServer } from '../test/fixtures/embeddings-server';
import { syntheticTools } from '../test/fixtures/synthetic-tools';
import { startRedisServer } from '../test/support/redis-server';
import {
  cpuMicros,
  FAULT_SERVER,
  freePort,
  JSON_HEADERS,
  load,
  type LoadResult,
  machine,
  median,
  medianOf,
  nullConfig,
  paced,
  type PacedResult,
  percentile,
  type Proc,
  type RouterProc,
  rssBytes,
  slope,
  startBareResponder,
  startNullHttp,
  startRouter,
  toolCall,
} from './harness';
import { measureHttpClients } from './http-clients';
import { summarizeProfile } from './profile';
import { TRACING_GOAL, tracingCost } from './tracing-cost';
import { loadLexicon } from '../src/discovery/lexicon';
import { writeLearnedStore } from './learned-store';

const QUICK = process.env.BENCH_QUICK === '1';
const RUNS = Number(process.env.BENCH_RUNS ?? (QUICK ? 1 : 3));
const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 2 : 5));
const HEAP_CALLS = Number(process.env.BENCH_HEAP_CALLS ?? (QUICK ? 10_000 : 200_000));
const ONLY = new Set((process.env.BENCH_ONLY ?? 'ceiling,batch,find,embeddings,heap,isolation,redis,tracing,profile').split(','));
const ROOT = resolve(__dirname, '..', '..');
const OUT = resolve(__dirname);

/**
 * Targets on this 2-core machine: the router's, and the budget of the ranking with every
 * signal that is on by default (the offline lexicon included), in process.
 */
const TARGETS = {
  singleCallsPerSecond: 2500,
  addedP99Ms: 5,
  routerCpuPerCallUs: 250,
  routerCpuPerBatchEntryUs: 60,
  findToolP99Ms: 2,
  findToolInProcessP99Ms: 10,
  findToolLearningP99Ms: 10,
  /** What a Redis-backed token adds to each call at 16 connections (one round trip). */
  redisAddedCpuPerCallUs: 150,
};

const gc = (globalThis as { gc?: () => void }).gc;

const results: Record<string, unknown> = {
  machine: machine(),
  settings: { runs: RUNS, seconds: SECONDS, heapCalls: HEAP_CALLS, quick: QUICK },
  startedAt: new Date().toISOString(),
};
const report: string[] = [];
const dir = mkdtempSync(join(tmpdir(), 'centralmcp-bench-'));
const procs: Proc[] = [];

function say(line = ''): void {
  report.push(line);
  process.stdout.write(`${line}\n`);
}

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : 'n/a');
const int = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : 'n/a');
const mark = (ok: boolean) => (ok ? 'met' : '**missed**');

async function track<T extends Proc>(p: Promise<T>): Promise<T> {
  const proc = await p;
  procs.push(proc);
  return proc;
}

async function stop(proc: Proc): Promise<void> {
  await proc.stop();
  procs.splice(procs.indexOf(proc), 1);
}

/** Median of RUNS runs of one load, after a warm-up run that is not counted. */
async function measure(o: Parameters<typeof load>[0]): Promise<LoadResult> {
  await load({ ...o, durationSeconds: Math.min(2, SECONDS), watch: {} });
  const runs: LoadResult[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await load(o));
  return medianOf(runs);
}

const okSingle = (body: string) => body.includes('"status":"ok"');
const okBatch = (body: string) => body.includes('"failed":0');

/** The pid of the router's stdio child running `name`, read from /proc. */
function stdioChildOf(routerPid: number, name: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== routerPid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(name)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

// --- (1) the ceiling, and (2) batch against singles ------------------------------------------

let routerCeiling16 = NaN;

async function ceilingAndBatch(): Promise<void> {
  const [barePort, nullPort] = [await freePort(), await freePort()];
  const bare = await track(startBareResponder(barePort));
  const nul = await track(startNullHttp(nullPort));
  const nullUrl = `http://127.0.0.1:${nullPort}/mcp`;
  const router = await track(startRouter(dir, nullConfig(nullUrl)));
  const stdioPid = stdioChildOf(router.pid, 'nullstdio');
  const single = (server: string) => toolCall('invoke_read_tool', { name: 'fast', server });
  const batch = (server: string) => toolCall('invoke_read_tool_batch', { calls: Array.from({ length: 25 }, () => ({ name: 'fast', server })) });

  if (ONLY.has('ceiling')) {
    say('## 1. The ceiling: single calls');
    say();
    say('| target | conns | calls/s | p50 ms | p99 ms | router CPU µs/call | backend CPU µs/call | failures |');
    say('|---|---:|---:|---:|---:|---:|---:|---:|');
    const rows: Record<string, Record<number, LoadResult>> = {};
    const targets: [string, string, string, (b: string) => boolean, Record<string, number>][] = [
      ['bare node:http JSON-RPC responder', `http://127.0.0.1:${barePort}/`, toolCall('fast', {}), (b) => b.includes('"result"'), { backend: bare.pid }],
      ['null backend (HTTP), called directly', nullUrl, toolCall('fast', {}), (b) => b.includes('"ok":true'), { backend: nul.pid }],
      ['router → null backend (HTTP)', router.url, single('null'), okSingle, { router: router.pid, backend: nul.pid }],
      ['router → null backend (stdio)', router.url, single('nullstdio'), okSingle, { router: router.pid, ...(stdioPid ? { backend: stdioPid } : {}) }],
    ];
    for (const connections of [1, 16]) {
      for (const [name, url, body, verify, watch] of targets) {
        const r = await measure({ url, body, connections, durationSeconds: SECONDS, verify, watch });
        (rows[name] ??= {})[connections] = r;
        say(
          `| ${name} | ${connections} | ${int(r.requestsPerSecond)} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.cpuPerRequest.router === undefined ? '–' : int(r.cpuPerRequest.router)} | ${r.cpuPerRequest.backend === undefined ? '–' : int(r.cpuPerRequest.backend)} | ${r.failures} |`,
        );
      }
    }
    const routerHttp = rows['router → null backend (HTTP)'];
    const direct = rows['null backend (HTTP), called directly'];
    const bareRow = rows['bare node:http JSON-RPC responder'];
    routerCeiling16 = routerHttp[16].requestsPerSecond;
    say();
    say(
      `Ratios at 16 connections: router/bare ${(routerHttp[16].requestsPerSecond / bareRow[16].requestsPerSecond).toFixed(2)}, router/direct ${(routerHttp[16].requestsPerSecond / direct[16].requestsPerSecond).toFixed(2)} of calls/s; p99 added by the router ${ms(routerHttp[16].p99 - direct[16].p99)} ms (1 conn: ${ms(routerHttp[1].p99 - direct[1].p99)} ms).`,
    );
    say();
    results.ceiling = rows;
    results.targets = {
      ...(results.targets as object),
      singleCallsPerSecond: {
        target: TARGETS.singleCallsPerSecond,
        measured: routerHttp[16].requestsPerSecond,
        met: routerHttp[16].requestsPerSecond >= TARGETS.singleCallsPerSecond,
      },
      addedP99Ms: { target: TARGETS.addedP99Ms, measured: routerHttp[16].p99 - direct[16].p99, met: routerHttp[16].p99 - direct[16].p99 <= TARGETS.addedP99Ms },
      routerCpuPerCallUs: {
        target: TARGETS.routerCpuPerCallUs,
        measured: routerHttp[16].cpuPerRequest.router,
        met: routerHttp[16].cpuPerRequest.router <= TARGETS.routerCpuPerCallUs,
      },
    };
  }

  if (ONLY.has('batch')) {
    say('## 2. A batch of 25 against 25 single calls');
    say();
    say('| backend | shape | conns | tool calls/s | request p50 ms | request p99 ms | router CPU µs per tool call | failures |');
    say('|---|---|---:|---:|---:|---:|---:|---:|');
    const rows: Record<string, LoadResult> = {};
    for (const server of ['null', 'nullstdio']) {
      for (const connections of [1, 16]) {
        const s = await measure({
          url: router.url,
          body: single(server),
          connections,
          durationSeconds: SECONDS,
          verify: okSingle,
          watch: { router: router.pid },
        });
        const b = await measure({
          url: router.url,
          body: batch(server),
          connections,
          durationSeconds: SECONDS,
          verify: okBatch,
          watch: { router: router.pid },
        });
        rows[`${server}/single/${connections}`] = s;
        rows[`${server}/batch/${connections}`] = b;
        const transport = server === 'null' ? 'HTTP' : 'stdio';
        say(
          `| ${transport} | 25 singles | ${connections} | ${int(s.requestsPerSecond)} | ${ms(s.p50)} | ${ms(s.p99)} | ${int(s.cpuPerRequest.router)} | ${s.failures} |`,
        );
        say(
          `| ${transport} | batch of 25 | ${connections} | ${int(b.requestsPerSecond * 25)} | ${ms(b.p50)} | ${ms(b.p99)} | ${int(b.cpuPerRequest.router / 25)} | ${b.failures} |`,
        );
      }
    }
    const entryCpu = rows['null/batch/16'].cpuPerRequest.router / 25;
    say();
    say(
      `Batch/singles, tool calls/s at 16 connections: HTTP ${((rows['null/batch/16'].requestsPerSecond * 25) / rows['null/single/16'].requestsPerSecond).toFixed(2)}×, stdio ${((rows['nullstdio/batch/16'].requestsPerSecond * 25) / rows['nullstdio/single/16'].requestsPerSecond).toFixed(2)}×.`,
    );
    say();
    results.batch = rows;
    results.targets = {
      ...(results.targets as object),
      routerCpuPerBatchEntryUs: { target: TARGETS.routerCpuPerBatchEntryUs, measured: entryCpu, met: entryCpu <= TARGETS.routerCpuPerBatchEntryUs },
    };
  }
  await stop(router);
  await stop(nul);
  await stop(bare);
}

// --- (6) a Redis-backed token against an in-memory one ---------------------------------------------

async function redisStore(): Promise<void> {
  say('## 6. Shared rate limits: a token from Redis against one from memory');
  say();
  const redis = await startRedisServer();
  const nullPort = await freePort();
  const nul = await track(startNullHttp(nullPort));
  const nullUrl = `http://127.0.0.1:${nullPort}/mcp`;
  // A rate far above what this machine serves: every call takes a token and none waits, so the
  // difference is the store's cost alone.
  const limited = (store: Record<string, unknown>) => ({
    backends: { null: { transport: 'http', url: nullUrl, timeoutMs: 30_000, rateLimit: { ratePerSecond: 1_000_000, burst: 1_000_000 } } },
    rateLimit: { ratePerSecond: 1_000_000, burst: 1_000_000, ...store },
  });
  const rows: Record<string, LoadResult> = {};
  try {
    say('| store | conns | calls/s | p50 ms | p99 ms | mean µs/call | router CPU µs/call | Redis CPU µs/call | failures |');
    say('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const [name, store] of [
      ['memory', { store: 'memory' }],
      ['redis', { store: 'redis', redis: { url: redis.url } }],
    ] as const) {
      const router = await track(startRouter(dir, limited(store)));
      for (const connections of [1, 16]) {
        const watch = { router: router.pid, ...(name === 'redis' ? { redis: redis.pid } : {}) };
        const r = await measure({
          url: router.url,
          body: toolCall('invoke_read_tool', { name: 'fast', server: 'null' }),
          connections,
          durationSeconds: SECONDS,
          verify: okSingle,
          watch,
        });
        rows[`${name}/${connections}`] = r;
        const mean = (connections / r.requestsPerSecond) * 1e6;
        say(
          `| ${name} | ${connections} | ${int(r.requestsPerSecond)} | ${ms(r.p50)} | ${ms(r.p99)} | ${int(mean)} | ${int(r.cpuPerRequest.router)} | ${r.cpuPerRequest.redis === undefined ? '–' : int(r.cpuPerRequest.redis)} | ${r.failures} |`,
        );
      }
      await stop(router);
    }
  } finally {
    await stop(nul);
    await redis.stop();
  }
  const added = (key: 'router' | 'mean', c: number) =>
    key === 'router'
      ? rows[`redis/${c}`].cpuPerRequest.router - rows[`memory/${c}`].cpuPerRequest.router
      : (c / rows[`redis/${c}`].requestsPerSecond - c / rows[`memory/${c}`].requestsPerSecond) * 1e6;
  say();
  say(
    `Added by Redis per call at 16 connections: ${int(added('router', 16))} µs of router CPU (plus ${int(rows['redis/16'].cpuPerRequest.redis)} µs in redis-server), ${int(added('mean', 16))} µs of mean time per call; at 1 connection ${int(added('mean', 1))} µs per call (the round trip).`,
  );
  say();
  results.redis = rows;
  results.targets = {
    ...(results.targets as object),
    redisAddedCpuPerCallUs: {
      target: TARGETS.redisAddedCpuPerCallUs,
      measured: added('router', 16),
      met: added('router', 16) <= TARGETS.redisAddedCpuPerCallUs,
    },
  };
}

// --- (3) find_tool at catalog scale ------------------------------------------------------------

const QUERIES = [
  'search jira issues',
  'list kubernetes pods',
  'get github pull request',
  'export stripe invoices',
  'pagerduty incident',
  'count open zendesk tickets',
  'describe s3 bucket',
  'grafana dashboard',
  'postgres table',
  'sentry alerts',
  'okta users of a team',
  'terraform workspace',
  'salesforce customer contract',
  'slack channel messages',
  'kubernets deploymnt',
  'summarize notion pages',
  'snowflake query',
  'hubspot customers',
  'confluence page comments',
  'datadog metric',
];

/**
 * 380 distinct queries, each one of QUERIES plus the last word of another: asked round-robin, more
 * than the router's find_tool cache holds (256), so every one is ranked afresh.
 */
const FIRST_SEEN_QUERIES = QUERIES.flatMap((q, i) => QUERIES.filter((_, j) => j !== i).map((other) => `${q} ${other.split(' ').at(-1)}`));

/**
 * Index build time, heap and search latency of the pure ranking code, before any router runs,
 * with the offline lexicon as the router loads it (every signal that is on by default).
 */
async function findToolInProcess(): Promise<
  Record<number, { buildMs: number; heapPerThousand: number; searchP50: number; searchP99: number; perQueryMs: Record<string, number> }>
> {
  const settle = async () => {
    for (let i = 0; i < 4; i++) {
      gc?.();
      await sleep(20);
    }
  };
  const out: Awaited<ReturnType<typeof findToolInProcess>> = {};
  const lexicon = loadLexicon();
  for (const n of [100, 1000, 10_000]) {
    const catalog = toCatalogTools('synthetic', syntheticTools(n));
    const builds: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      buildToolIndex(catalog, { lexicon });
      builds.push(performance.now() - t);
    }
    // Enough copies that a small catalog's index stands out of the heap's noise.
    const copies = Math.max(1, Math.round(20_000 / n));
    await settle();
    const before = process.memoryUsage().heapUsed;
    const kept = Array.from({ length: copies }, () => ({ index: buildToolIndex(catalog, { lexicon }), byName: indexByName(catalog) }));
    await settle();
    const heapPerThousand = ((process.memoryUsage().heapUsed - before) / (n * copies)) * 1000;
    const searches: number[] = [];
    const perQuery = new Map<string, number[]>();
    for (let round = 0; round < 50; round++) {
      for (const q of QUERIES) {
        const t = performance.now();
        searchTools(kept[0].index, q, { topK: 5 });
        const took = performance.now() - t;
        searches.push(took);
        perQuery.set(q, [...(perQuery.get(q) ?? []), took]);
      }
    }
    out[n] = {
      buildMs: median(builds),
      heapPerThousand,
      searchP50: percentile(searches, 50),
      searchP99: percentile(searches, 99),
      perQueryMs: Object.fromEntries([...perQuery].map(([q, t]) => [q, median(t)])),
    };
    kept.length = 0;
  }
  return out;
}

async function findTool(): Promise<void> {
  say('## 3. find_tool at catalog scale');
  say();
  say(
    '| tools | index build ms | heap per 1,000 tools (in process) | search p50 ms (in process) | search p99 ms (in process) | find_tool p50 ms (HTTP, 1 conn) | find_tool p99 ms (HTTP) | find_tool p99 ms, first-seen queries (HTTP) | router post-GC heap MiB |',
  );
  say('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const rows: Record<number, Record<string, number>> = {};
  const inProcess = await findToolInProcess();
  let learning: LearningRow | undefined;
  for (const n of [100, 1000, 10_000]) {
    const { buildMs, heapPerThousand, searchP50, searchP99 } = inProcess[n];
    const router = await track(startRouter(dir, { backends: catalogBackend(n) }));
    // At 10,000 tools a second router with learning on runs beside the first and is measured in
    // turns with it, so that both meet the same load on a shared machine.
    const learner = n === 10_000 ? await startLearningRouter(n) : undefined;
    const [e2e, e2eLearning] = await measureInTurns(router, learner?.router, QUERIES);
    const [firstSeen, firstSeenLearning] = await measureInTurns(router, learner?.router, FIRST_SEEN_QUERIES);
    const heap = await router.heap();
    await stop(router);
    rows[n] = { buildMs, heapPerThousand, searchP50, searchP99, e2eP50: e2e.p50, e2eP99: e2e.p99, firstSeenP99: firstSeen.p99, routerHeap: heap.heapUsed };
    say(
      `| ${int(n)} | ${ms(buildMs)} | ${(heapPerThousand / 1024).toFixed(0)} KiB | ${ms(searchP50)} | ${ms(searchP99)} | ${ms(e2e.p50)} | ${ms(e2e.p99)} | ${ms(firstSeen.p99)} | ${(heap.heapUsed / 2 ** 20).toFixed(1)} |`,
    );
    if (learner !== undefined && e2eLearning !== undefined && firstSeenLearning !== undefined) {
      const metrics = await (await fetch(learner.router.metricsUrl)).text();
      const inUse = Number(/^centralmcp_router_learning_associations (\S+)$/m.exec(metrics)?.[1] ?? 0);
      const learnerHeap = await learner.router.heap();
      await stop(learner.router);
      learning = { written: learner.written, inUse, e2eP50: e2eLearning.p50, e2eP99: e2eLearning.p99, firstSeenP99: firstSeenLearning.p99 };
      say(
        `| ${int(n)}, learning on | — | — | — | — | ${ms(e2eLearning.p50)} | ${ms(e2eLearning.p99)} | ${ms(firstSeenLearning.p99)} | ${(learnerHeap.heapUsed / 2 ** 20).toFixed(1)} |`,
      );
    }
  }
  if (learning === undefined) throw new Error('the 10,000-tool row with learning on was not measured');
  const slowest = Object.entries(inProcess[10_000].perQueryMs)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3);
  const routerPerThousand = (rows[10_000].routerHeap - rows[100].routerHeap) / 9.9;
  say();
  say(`Slowest queries at 10,000 tools (in process, median of 50 each): ${slowest.map(([q, t]) => `"${q}" ${ms(t)} ms`).join(', ')}.`);
  say(
    `Router post-GC heap per 1,000 catalog tools (10,000 vs 100 tools): ${(routerPerThousand / 1024).toFixed(0)} KiB. Building the whole index (at boot) takes ${ms(rows[10_000].buildMs)} ms at 10,000 tools; a backend's refresh updates only its own tools in place.`,
  );
  say(
    'The in-process search and "first-seen queries" columns rank every query afresh; the other find_tool columns repeat 20 queries, as agents do, and are answered from the ranking cache after their first round.',
  );
  say(
    `The "learning on" row: a router with \`discovery.learning\` (\`store: file\`), measured in turns with the row above it, whose file holds ${int(learning.written)} word-tool associations over the 10,000 tools, each made by three principals; ${int(learning.inUse)} in use by its metric after the run (at most 20 tools per word). Learning on against off, side by side: first-seen p99 ${(learning.firstSeenP99 / rows[10_000].firstSeenP99).toFixed(2)}x, repeated p99 ${(learning.e2eP99 / rows[10_000].e2eP99).toFixed(2)}x. In-process figures with and without learning: \`npm run bench:learning\`.`,
  );
  say();
  results.findTool = { rows, learning, perQueryMs10k: inProcess[10_000].perQueryMs };
  // The target is judged on first-seen queries: a cache only helps an agent that repeats itself.
  results.targets = {
    ...(results.targets as object),
    findToolP99Ms: {
      target: TARGETS.findToolP99Ms,
      measured: rows[10_000].firstSeenP99,
      repeated: rows[10_000].e2eP99,
      inProcess: rows[10_000].searchP99,
      met: rows[10_000].firstSeenP99 <= TARGETS.findToolP99Ms,
    },
    findToolLearningP99Ms: {
      target: TARGETS.findToolLearningP99Ms,
      measured: learning.firstSeenP99,
      met: learning.firstSeenP99 <= TARGETS.findToolLearningP99Ms,
    },
    findToolInProcessP99Ms: {
      target: TARGETS.findToolInProcessP99Ms,
      measured: rows[10_000].searchP99,
      met: rows[10_000].searchP99 <= TARGETS.findToolInProcessP99Ms,
    },
  };
}

function catalogBackend(n: number): Record<string, unknown> {
  return { catalog: { transport: 'stdio', command: process.execPath, args: [FAULT_SERVER, '--name', 'catalog', '--tools', String(n)], timeoutMs: 30_000 } };
}

interface LearningRow {
  written: number;
  inUse: number;
  e2eP50: number;
  e2eP99: number;
  firstSeenP99: number;
}

/**
 * A router over the same catalog with learning from use on, its `store: file` prepared with many
 * associations, as a deployment's traffic would leave it.
 */
async function startLearningRouter(n: number): Promise<{ router: RouterProc; written: number }> {
  const store = join(dir, 'learned.json');
  const written = writeLearnedStore(store, toCatalogTools('catalog', syntheticTools(n)), 100_000, Date.now());
  const router = await track(startRouter(dir, { backends: catalogBackend(n), discovery: { learning: { enabled: true, store: 'file', path: store } } }));
  return { router, written };
}

/**
 * find_tool over HTTP (1 connection) against a router and, when given, a second one in turns: a
 * warm-up each, then RUNS rounds of one run per router; the median run of each.
 */
async function measureInTurns(router: RouterProc, other: RouterProc | undefined, queries: readonly string[]): Promise<[LoadResult, LoadResult | undefined]> {
  const options = (target: RouterProc): Parameters<typeof load>[0] => ({
    url: target.url,
    bodies: queries.map((query, i) => toolCall('find_tool', { query }, i + 1)),
    connections: 1,
    durationSeconds: SECONDS,
    verify: (b) => b.includes('"hits"'),
  });
  const targets = other === undefined ? [router] : [router, other];
  for (const target of targets) await load({ ...options(target), durationSeconds: Math.min(2, SECONDS), watch: {} });
  const runs: LoadResult[][] = targets.map(() => []);
  for (let round = 0; round < RUNS; round++) for (const [i, target] of targets.entries()) runs[i].push(await load(options(target)));
  return [medianOf(runs[0]), runs.length > 1 ? medianOf(runs[1]) : undefined];
}

// --- (3b) find_tool with an embeddings endpoint ------------------------------------------------

/**
 * The catalog search (ToolSearchService) at 10,000 tools with `discovery.embeddings` on, in process, against the
 * test suite's local endpoint (768 dimensions, a hashed bag of words: its own cost is small, so
 * what is measured is the router's). First-seen queries pay one loopback request each; repeated
 * ones have their vector cached and pay the cosine over every tool and the fusion.
 */
async function findToolWithEmbeddings(): Promise<void> {
  const n = 10_000;
  say(`## 3b. find_tool with an embeddings endpoint (${int(n)} tools, 768 dimensions, in process)`);
  say();
  Logger.overrideLogger(['error']);
  const endpoint = await startEmbeddingsServer('ok', { dimensions: 768 });
  const embeddings = new EmbeddingsService({
    embeddings: { url: endpoint.url, model: 'bench', headers: {}, timeoutMs: 2000, batchTimeoutMs: 30_000, batchSize: 64 },
  });
  const lexicon = loadLexicon();
  const lexicalCatalog = new RegistryService();
  const lexicalOnly = new ToolSearchService(lexicalCatalog, new EmbeddingsService({}), lexicon);
  const registry = new RegistryService();
  const search = new ToolSearchService(registry, embeddings, lexicon);
  const catalog = toCatalogTools('synthetic', syntheticTools(n));
  lexicalCatalog.replaceTools('synthetic', catalog);
  let t = performance.now();
  registry.replaceTools('synthetic', catalog);
  const refreshMs = performance.now() - t;
  t = performance.now();
  while (embeddings.stats().embeddedTools < n) await sleep(10);
  const embedAllMs = performance.now() - t;
  const requests = endpoint.requests.length;
  const timed = async (search: (q: string) => Promise<unknown>) => {
    const took: number[] = [];
    for (const q of FIRST_SEEN_QUERIES) {
      const start = performance.now();
      await search(q);
      took.push(performance.now() - start);
    }
    return { p50: percentile(took, 50), p99: percentile(took, 99) };
  };
  const lexical = await timed((q) => lexicalOnly.search(q, 5));
  const firstSeen = await timed((q) => search.search(q, 5));
  const repeated = await timed((q) => search.search(q, 5));
  embeddings.onModuleDestroy();
  await endpoint.close();
  Logger.overrideLogger(['log', 'error', 'warn']);
  say('| | p50 ms | p99 ms |');
  say('|---|---:|---:|');
  say(`| lexical only (embeddings off) | ${ms(lexical.p50)} | ${ms(lexical.p99)} |`);
  say(`| first-seen queries (one request to the endpoint each) | ${ms(firstSeen.p50)} | ${ms(firstSeen.p99)} |`);
  say(`| repeated queries (vector cached: cosine over every tool + fusion) | ${ms(repeated.p50)} | ${ms(repeated.p99)} |`);
  say();
  say(
    `The catalog update itself took ${ms(refreshMs)} ms (the embedding runs after it); embedding all ${int(n)} tool texts took ${int(embedAllMs)} ms in ${int(requests)} requests of up to 64 texts.`,
  );
  say();
  results.findToolEmbeddings = { tools: n, dimensions: 768, refreshMs, embedAllMs, requests, lexical, firstSeen, repeated };
}

// --- (4) idle RSS and the heap over a long run -----------------------------------------------

async function heapRun(): Promise<void> {
  say(`## 4. Idle RSS and the post-GC heap over ${int(HEAP_CALLS)} calls`);
  say();
  const nullPort = await freePort();
  const nul = await track(startNullHttp(nullPort));
  const router = await track(startRouter(dir, nullConfig(`http://127.0.0.1:${nullPort}/mcp`)));
  await sleep(2000);
  const idle = { rss: rssBytes(router.pid), heap: (await router.heap()).heapUsed };
  // Warm up first: JIT code, pools and caches are not growth.
  await load({ url: router.url, body: toolCall('invoke_read_tool', { name: 'fast', server: 'null' }), connections: 16, amount: 5000 });
  // `rss` is read inside the router after its full GCs; `rssRaw` from /proc just before them, as
  // an operator's monitoring sees it.
  const points: { calls: number; heap: number; rss: number; rssRaw: number }[] = [];
  const firstRaw = rssBytes(router.pid);
  const first = await router.heap();
  points.push({ calls: 0, heap: first.heapUsed, rss: first.rss, rssRaw: firstRaw });
  const chunk = Math.ceil(HEAP_CALLS / 10);
  const started = performance.now();
  for (let done = 0; done < HEAP_CALLS; done += chunk) {
    // Mixed traffic, as in production: mostly singles over HTTP and stdio, some batches.
    await load({
      url: router.url,
      bodies: [
        toolCall('invoke_read_tool', { name: 'fast', server: 'null' }, 1),
        toolCall('invoke_read_tool', { name: 'fast', server: 'nullstdio' }, 2),
        toolCall('invoke_read_tool', { name: 'fast', server: 'null' }, 'three'),
        toolCall(
          'invoke_read_tool_batch',
          {
            calls: [
              { name: 'fast', server: 'null' },
              { name: 'fast', server: 'nullstdio' },
            ],
          },
          4,
        ),
      ],
      connections: 16,
      amount: chunk,
    });
    const rssRaw = rssBytes(router.pid);
    const h = await router.heap();
    points.push({ calls: done + chunk, heap: h.heapUsed, rss: h.rss, rssRaw });
  }
  const seconds = (performance.now() - started) / 1000;
  const perThousand = slope(
    points.map((p) => p.calls / 1000),
    points.map((p) => p.heap),
  );
  const secondHalf = points.slice(Math.floor(points.length / 2));
  const lateSlope = slope(
    secondHalf.map((p) => p.calls / 1000),
    secondHalf.map((p) => p.heap),
  );
  say(`Idle (2 s after ready): RSS ${(idle.rss / 2 ** 20).toFixed(1)} MiB, post-GC heap ${(idle.heap / 2 ** 20).toFixed(1)} MiB.`);
  say();
  say('| requests | post-GC heap MiB | RSS after full GC, MiB | RSS as it was (/proc, before the GC), MiB |');
  say('|---:|---:|---:|---:|');
  for (const p of points) say(`| ${int(p.calls)} | ${(p.heap / 2 ** 20).toFixed(2)} | ${(p.rss / 2 ** 20).toFixed(1)} | ${(p.rssRaw / 2 ** 20).toFixed(1)} |`);
  say();
  say(
    `${int(HEAP_CALLS)} requests in ${seconds.toFixed(0)} s. Post-GC heap slope: ${(perThousand / 1024).toFixed(2)} KiB per 1,000 requests over the whole run (${((perThousand * HEAP_CALLS) / 1000 / 2 ** 20).toFixed(2)} MiB over the run on the fitted line), ${(lateSlope / 1024).toFixed(2)} KiB per 1,000 over its second half; first → last ${((points[points.length - 1].heap - points[0].heap) / 2 ** 20).toFixed(2)} MiB.`,
  );
  say();
  // Single points scatter by ±0.5 MiB (what a full GC leaves varies), so growth is judged on the
  // fitted line over the whole run: under 1 MiB over 200,000 requests (5 bytes a request); a leak
  // of even 50 bytes a request would show as 10 MiB.
  // Resident memory as monitoring sees it: after boot, then over the calls. Flat: the line fitted
  // to the second half's points (the first half includes JIT code and pools still filling) grows
  // less than 4 MiB over the whole run.
  const rssLateSlope = slope(
    secondHalf.map((p) => p.calls / 1000),
    secondHalf.map((p) => p.rssRaw),
  );
  const rssLateGrowth = (rssLateSlope * HEAP_CALLS) / 1000;
  const lastRaw = points[points.length - 1].rssRaw;
  say(
    `RSS (/proc): ${(idle.rss / 2 ** 20).toFixed(1)} MiB after boot, ${(firstRaw / 2 ** 20).toFixed(1)} MiB after the warm-up, ${(lastRaw / 2 ** 20).toFixed(1)} MiB after ${int(HEAP_CALLS)} more requests; the line fitted to the second half grows ${(rssLateGrowth / 2 ** 20).toFixed(2)} MiB over the run.`,
  );
  say();
  const fittedGrowth = (perThousand * HEAP_CALLS) / 1000;
  const grows = fittedGrowth > 2 ** 20 * (HEAP_CALLS / 200_000);
  results.heap = {
    idle,
    rssAfterWarmUp: firstRaw,
    rssLateGrowth,
    points,
    slopeBytesPerThousand: perThousand,
    lateSlopeBytesPerThousand: lateSlope,
    fittedGrowth,
    seconds,
  };
  results.targets = {
    ...(results.targets as object),
    noHeapGrowth: { target: 'fitted growth < 1 MiB per 200,000 requests', measured: fittedGrowth, met: !grows },
    rssAfterBoot: { target: 'RSS after boot <= 110 MiB', measured: idle.rss, met: idle.rss <= 110 * 2 ** 20 },
    rssFlat: { target: 'RSS flat: second-half fitted growth < 4 MiB over the run', measured: rssLateGrowth, met: rssLateGrowth < 4 * 2 ** 20 },
  };
  await stop(router);
  await stop(nul);
}

// --- (5) a healthy backend's p99 while another misbehaves -------------------------------------

async function isolation(): Promise<void> {
  say('## 5. p99 of a healthy backend while another crashes, hangs or floods');
  say();
  const [nullPort, sickPort] = [await freePort(), await freePort()];
  const nul = await track(startNullHttp(nullPort));
  const sickHttp = await track(startNullHttp(sickPort));
  const router = await track(
    startRouter(dir, {
      backends: {
        null: { transport: 'http', url: `http://127.0.0.1:${nullPort}/mcp`, timeoutMs: 30_000 },
        sick: { transport: 'stdio', command: process.execPath, args: [FAULT_SERVER, '--name', 'sick'], timeoutMs: 1000 },
        // Crashed over and over: it ends in the 30 s crash-loop backoff, so nothing else uses it.
        crashy: { transport: 'stdio', command: process.execPath, args: [FAULT_SERVER, '--name', 'crashy'], timeoutMs: 1000 },
        sickhttp: { transport: 'http', url: `http://127.0.0.1:${sickPort}/mcp`, timeoutMs: 1000 },
        storm: { transport: 'stdio', command: process.execPath, args: [FAULT_SERVER, '--name', 'storm', '--tools', '2000'], timeoutMs: 30_000 },
      },
    }),
  );
  // A third of the router's single-call ceiling, so the figure is latency, not a queue's length.
  const rate = Math.round((Number.isFinite(routerCeiling16) ? routerCeiling16 : 800) / 3);
  const healthy = () =>
    paced({ url: router.url, body: toolCall('invoke_read_tool', { name: 'fast', server: 'null' }), rate, seconds: SECONDS, verify: okSingle });
  const post = (name: string, server: string, args: Record<string, unknown> = {}) =>
    fetch(router.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: toolCall('invoke_read_tool', { name, server, arguments: args }),
    }).then((r) => r.text());
  const loops = (n: number, call: () => Promise<unknown>, pauseMs: number) => {
    let on = true;
    const all = Array.from({ length: n }, async () => {
      while (on) {
        await call().catch(() => undefined);
        await sleep(pauseMs);
      }
    });
    return async () => {
      on = false;
      await Promise.all(all);
    };
  };
  const faults: [string, () => () => Promise<void>][] = [
    ['another crashes (stdio, every 100 ms)', () => loops(1, () => post('crash', 'crashy'), 100)],
    ['another hangs (8 calls at a time, 1 s deadline)', () => loops(8, () => Promise.all([post('hang', 'sick'), post('hang', 'sickhttp')]), 0)],
    [
      'another floods 12 MiB answers (stdio + HTTP)',
      () => loops(2, () => Promise.all([post('huge', 'sick'), post('huge', 'sickhttp', { chunked: true })]), 100),
    ],
    [
      'another floods list_changed (2,000 tools, every 50 ms)',
      () => {
        void post('fixture_storm', 'storm', { everyMs: 50, forMs: SECONDS * 1000 + 1000 });
        return async () => sleep(1500); // let the storm end and the last refresh land
      },
    ],
  ];
  say(
    `Healthy load: single calls to the HTTP null backend, open loop at ${int(rate)} calls/s (a third of the router's 16-connection ceiling), each timed from when it was due; after a warm-up window, ${RUNS} quiet windows of ${SECONDS} s before any fault, then ${RUNS} windows during each fault; medians.`,
  );
  say();
  say('| while … | healthy p50 ms | healthy p99 ms | p99 / quiet p99 | healthy failures |');
  say('|---|---:|---:|---:|---:|');
  // The quiet baseline is taken before any fault: a crashed backend respawns on its own backoff
  // schedule and timed-out calls clean up late, so a quiet window after a faulty one is not quiet.
  await healthy(); // warm-up of this fresh router (JIT, pools), not counted
  const quietRuns: PacedResult[] = [];
  for (let i = 0; i < RUNS; i++) quietRuns.push(await healthy());
  const q = { p50: median(quietRuns.map((r) => r.p50)), p99: median(quietRuns.map((r) => r.p99)), failures: Math.max(...quietRuns.map((r) => r.failures)) };
  say(`| nothing (quiet) | ${ms(q.p50)} | ${ms(q.p99)} | 1.00 | ${q.failures} |`);
  const rows: Record<string, unknown> = { quiet: q };
  for (const [what, start] of faults) {
    const faulty: PacedResult[] = [];
    for (let i = 0; i < RUNS; i++) {
      const end = start();
      await sleep(200);
      faulty.push(await healthy());
      await end();
      await sleep(1000);
    }
    const f = { p50: median(faulty.map((r) => r.p50)), p99: median(faulty.map((r) => r.p99)), failures: Math.max(...faulty.map((r) => r.failures)) };
    rows[what] = f;
    say(`| ${what} | ${ms(f.p50)} | ${ms(f.p99)} | ${(f.p99 / q.p99).toFixed(2)} | ${f.failures} |`);
  }
  say();
  // What one fault costs the router itself: CPU per oversized answer, sockets left by timeouts.
  const cpuPer = async (server: string, args: Record<string, unknown>, n = 20) => {
    const first = await post('huge', server, args);
    if (!first.includes('size limit')) throw new Error(`expected a size-limit error from ${server}: ${first.slice(0, 200)}`);
    const before = cpuMicros(router.pid);
    for (let i = 0; i < n; i++) await post('huge', server, args);
    return (cpuMicros(router.pid) - before) / n / 1000;
  };
  const huge = { httpChunked: await cpuPer('sickhttp', { chunked: true }), httpContentLength: await cpuPer('sickhttp', {}), stdio: await cpuPer('sick', {}) };
  say(
    `Router CPU per 12 MiB answer (refused over the 8 MiB cap): HTTP without Content-Length ${ms(huge.httpChunked)} ms, HTTP with Content-Length ${ms(huge.httpContentLength)} ms, stdio ${ms(huge.stdio)} ms.`,
  );
  type Held = { openSockets: number; pendingRequests: number };
  const held = async (): Promise<Held> =>
    (
      (await (
        await fetch(`http://127.0.0.1:${sickPort}/mcp`, { method: 'POST', headers: { ...JSON_HEADERS, connection: 'close' }, body: toolCall('stats', {}) })
      ).json()) as { result: { structuredContent: Held } }
    ).result.structuredContent;
  const heldBefore = await held();
  await Promise.all(Array.from({ length: 100 }, () => post('hang', 'sickhttp')));
  const heldAfter = await held();
  await sleep(3000);
  const heldLater = await held();
  const show = (h: Held) => `${h.pendingRequests} hung requests open (${h.openSockets} sockets)`;
  say(
    `At an HTTP backend around 100 calls that time out (1 s deadline): before ${show(heldBefore)}; as the last call answers \`error\` ${show(heldAfter)}; 3 s later ${show(heldLater)}. (Idle keep-alive sockets stay in the router's pool; a hung request is one the router never aborted.)`,
  );
  say();
  results.isolation = { ...rows, hugeAnswerCpuMs: huge, hangHeld: { before: heldBefore, after: heldAfter, later: heldLater } };
  await stop(router);
  await stop(sickHttp);
  await stop(nul);
}

// --- profile of the largest miss ---------------------------------------------------------------

/** A CPU profile of the router under one load, printed as areas, inclusive and self time. */
async function profileRouter(title: string, server: 'null' | 'nullstdio'): Promise<{ summary: ReturnType<typeof summarizeProfile>; perCall: number }> {
  // Kept beside the report, to open in Chrome DevTools or speedscope.
  const file = join(OUT, `router-${server === 'null' ? 'http' : 'stdio'}.cpuprofile`);
  const nullPort = await freePort();
  const nul = await track(startNullHttp(nullPort));
  const router = await track(startRouter(dir, nullConfig(`http://127.0.0.1:${nullPort}/mcp`)));
  const body = toolCall('invoke_read_tool', { name: 'fast', server });
  await load({ url: router.url, body, connections: 16, durationSeconds: 2 });
  const stopProfile = await router.profile(file);
  const r = await load({ url: router.url, body, connections: 16, durationSeconds: Math.max(SECONDS, 8), verify: okSingle, watch: { router: router.pid } });
  await stopProfile();
  await stop(router);
  await stop(nul);
  const summary = summarizeProfile(file, ROOT, 20);
  say(`### ${title}`);
  say();
  say(
    `${int(r.requestsPerSecond)} calls/s, ${int(r.cpuPerRequest.router)} µs router CPU per call while profiled (sampling every 0.5 ms adds some); ${int(summary.totalMs)} ms busy.`,
  );
  say();
  say(
    'Busy time by area (each sample booked to the nearest frame of the router or of a package on its stack; node internals with no such frame, e.g. socket callbacks, are grouped):',
  );
  say();
  say('| area | share | µs per call |');
  say('|---|---:|---:|');
  for (const row of summary.byArea) say(`| ${row.where} | ${(row.share * 100).toFixed(1)}% | ${int((row.ms * 1000) / r.requests)} |`);
  say();
  say("Inclusive time (on the stack) of the router's and packages' functions:");
  say();
  say('| function | share | µs per call |');
  say('|---|---:|---:|');
  for (const row of summary.inclusiveByFunction.slice(0, 20))
    say(`| \`${row.where}\` | ${(row.share * 100).toFixed(1)}% | ${int((row.ms * 1000) / r.requests)} |`);
  say();
  say('Self time, top functions:');
  say();
  say('| function | share | µs per call |');
  say('|---|---:|---:|');
  for (const row of summary.selfByFunction.slice(0, 15)) say(`| \`${row.where}\` | ${(row.share * 100).toFixed(1)}% | ${int((row.ms * 1000) / r.requests)} |`);
  say();
  return { summary, perCall: r.cpuPerRequest.router };
}

async function profile(): Promise<void> {
  say('## Profile of the largest miss: router CPU per call over HTTP');
  say();
  const http = await profileRouter('Single calls to the null HTTP backend, 16 connections', 'null');
  const stdio = await profileRouter('For comparison: the same over stdio (no HTTP client in the path)', 'nullstdio');

  // The client side of a backend call alone, in this process: who costs what.
  const clientPort = await freePort();
  const clientBackend = await track(startNullHttp(clientPort));
  const clients = await measureHttpClients(`http://127.0.0.1:${clientPort}/mcp`, QUICK ? 2000 : 10_000, 16);
  await stop(clientBackend);
  say('### The client side of one backend call over HTTP, alone');
  say();
  say('This process calling the null backend, 16 calls at a time, CPU of this process only:');
  say();
  say('| client | CPU µs per call | calls/s | MaxListenersExceededWarning |');
  say('|---|---:|---:|---:|');
  for (const c of clients) say(`| ${c.client} | ${int(c.cpuMicrosPerCall)} | ${int(c.callsPerSecond)} | ${int(c.listenerWarnings)} |`);
  say();
  say(
    "The warnings: the SDK transport hands every fetch one long-lived AbortSignal and undici drops its listener only at GC (nodejs/node#52635); the router calls tools over a pooled node:http client of its own (src/backends/transports/http-client.transport.ts), and guardedFetch gives each of the SDK's POSTs a signal of its own.",
  );
  say();

  results.profile = { http: http.summary, stdio: stdio.summary, httpClients: clients };
}

function targetsTable(): void {
  const t = (results.targets ?? {}) as Record<string, { target: unknown; measured: number; met: boolean }>;
  const line = (name: string, key: string, unit: string, digits = 0) =>
    t[key] && say(`| ${name} | ${String(t[key].target)} ${unit} | ${t[key].measured.toFixed(digits)} ${unit} | ${mark(t[key].met)} |`);
  say('## Targets');
  say();
  say('| target | wanted | measured | |');
  say('|---|---:|---:|---|');
  line('single calls/s against the null HTTP backend (16 conns)', 'singleCallsPerSecond', 'calls/s');
  line('p99 added by the router at 16 connections', 'addedP99Ms', 'ms', 2);
  line('router CPU per single call', 'routerCpuPerCallUs', 'µs');
  line('router CPU per batch entry', 'routerCpuPerBatchEntryUs', 'µs');
  line('find_tool p99 at 10,000 tools (HTTP, 1 conn, first-seen queries)', 'findToolP99Ms', 'ms', 2);
  line('find_tool p99 at 10,000 tools, in process, every default signal', 'findToolInProcessP99Ms', 'ms', 2);
  line('find_tool p99 at 10,000 tools with learning on (HTTP, 1 conn, first-seen queries)', 'findToolLearningP99Ms', 'ms', 2);
  line('router CPU a Redis-backed token adds per call (16 conns)', 'redisAddedCpuPerCallUs', 'µs');
  line('router CPU per single call, tracing on / off (always_on, exporting)', 'tracingSingleCpuRatio', '×', 2);
  line('router CPU per batch entry, tracing on / off (always_on, exporting)', 'tracingBatchEntryCpuRatio', '×', 2);
  if (t.noHeapGrowth)
    say(
      `| no heap growth over the long run (fitted line) | < 1 MiB over ${int(HEAP_CALLS)} requests | ${(t.noHeapGrowth.measured / 2 ** 20).toFixed(2)} MiB | ${mark(t.noHeapGrowth.met)} |`,
    );
  if (t.rssAfterBoot)
    say(`| router RSS after boot (lexicon loaded) | ≤ 110 MiB | ${(t.rssAfterBoot.measured / 2 ** 20).toFixed(1)} MiB | ${mark(t.rssAfterBoot.met)} |`);
  if (t.rssFlat)
    say(
      `| RSS flat under load (line fitted to the second half) | < 4 MiB over ${int(HEAP_CALLS)} requests | ${(t.rssFlat.measured / 2 ** 20).toFixed(2)} MiB | ${mark(t.rssFlat.met)} |`,
    );
  say();
}

// --- (7) OpenTelemetry off and on ----------------------------------------------------------------

async function tracingSection(): Promise<void> {
  const { rows, ratios, unsampledRatios, exported, floor } = await tracingCost({ dir, seconds: SECONDS, runs: RUNS, say, track, stop });
  results.tracing = { rows, ratios, unsampledRatios, exported, sdkAloneMicrosPerCall: floor };
  results.targets = {
    ...(results.targets as object),
    tracingSingleCpuRatio: { target: TRACING_GOAL, measured: ratios.single, met: ratios.single <= TRACING_GOAL },
    tracingBatchEntryCpuRatio: { target: TRACING_GOAL, measured: ratios.entry, met: ratios.entry <= TRACING_GOAL },
  };
}

async function main(): Promise<void> {
  const m = results.machine as ReturnType<typeof machine>;
  say(`# CentralMCP Router benchmarks — ${new Date().toISOString()}`);
  say();
  say(
    `Machine: ${m.cores} × ${m.cpu}${m.mhz > 0 ? ` @ ${m.mhz} MHz` : ''}, ${m.memoryGiB} GiB RAM (${m.freeGiB} free), Linux ${m.kernel}, Node ${m.node}; load average at start ${m.loadAtStart.join(' / ')}.`,
  );
  say(
    `Each figure is the median of ${RUNS} run(s) of ${SECONDS} s after a warm-up run. The load generator (autocannon), the router and the backends share the ${m.cores} cores.`,
  );
  say();
  if (ONLY.has('ceiling') || ONLY.has('batch')) await ceilingAndBatch();
  if (ONLY.has('find')) await findTool();
  if (ONLY.has('embeddings')) await findToolWithEmbeddings();
  if (ONLY.has('heap')) await heapRun();
  if (ONLY.has('isolation')) await isolation();
  if (ONLY.has('redis')) await redisStore();
  if (ONLY.has('tracing')) await tracingSection();
  targetsTable();
  if (ONLY.has('profile')) await profile();
  writeFileSync(join(OUT, 'last-run.json'), JSON.stringify(results, null, 2));
  writeFileSync(join(OUT, 'last-run.md'), `${report.join('\n')}\n`);
  process.stdout.write(`\nWritten: ${join(OUT, 'last-run.md')} and last-run.json\n`);
}

main()
  .catch((err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await Promise.allSettled(procs.map((p) => p.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

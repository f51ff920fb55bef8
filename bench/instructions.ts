/**
 * `npm run bench:instructions -- [git ref ...]`: machine instructions the router executes per
 * single call and per batch entry, for this tree and for each earlier commit named, counted by
 * valgrind's callgrind.
 *
 * Router CPU time per call moves by ±15% between two runs of one build on this shared 2-core box
 * (and more under other load), so a 10% change hides in it even in paired runs (bench/compare.ts).
 * An instruction count does not depend on what else the machine is doing. Each build's router runs
 * under `valgrind --tool=callgrind` with instrumentation off while it boots and warms up (near
 * native speed for valgrind), then on for exactly the measured requests: one connection, one
 * request after another, against the same null backends as sections 1 and 2 of `npm run bench`.
 * What the count includes: the router's main thread (the JavaScript, the event loop, the
 * GC's main-thread share), from the first byte of the first measured request to the answer of the
 * last, each window after full GCs. What it does not show: time spent waiting,
 * and cost that only appears under concurrency (16 connections).
 *
 * Needs valgrind (Debian `valgrind`, which has callgrind_control). Environment (optional):
 * BENCH_INSTR_WINDOWS (measured windows per row, default 5), BENCH_INSTR_CALLS (single calls per
 * window, default 200; a batch window is an eighth as many batches of 25), BENCH_INSTR_WARMUP
 * (unmeasured calls per row first, default 5000), BENCH_INSTR_KEEP=1
 * (keep the dumps, one per window and thread, for callgrind_annotate), BENCH_INSTR_ROWS (count only
 * the rows whose name holds one of these `|`-separated parts, e.g. `HTTP, single call|stdio, single call`).
 * Writes dist/bench/instructions.{json,md}.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildAt, headOfTree } from './builds';
import { BATCH_SIZE, bodyOf, CALL_SHAPES, okBody } from './call-rows';
import { freePort, JSON_HEADERS, median, nullConfig, type RouterProc, startNullHttp, startRouter } from './harness';
import { startCountingReceiver, TRACING_ON } from './tracing-cost';

const OUT = resolve(__dirname);
const WINDOWS = Number(process.env.BENCH_INSTR_WINDOWS ?? 5);
const CALLS = Number(process.env.BENCH_INSTR_CALLS ?? 200);
/** Batches per window: an eighth as many requests as single calls, each of BATCH_SIZE entries. */
const BATCHES = Math.max(1, Math.round(CALLS / 8));
/** Keeps callgrind's dumps (one per window and thread) for callgrind_annotate; their folder is printed. */
const KEEP = process.env.BENCH_INSTR_KEEP === '1';
/** The rows counted: all, or those whose name holds one of BENCH_INSTR_ROWS' `|`-separated parts. */
const ROWS_COUNTED = ((only) => (only === undefined ? CALL_SHAPES : CALL_SHAPES.filter((row) => only.split('|').some((part) => row.name.includes(part)))))(
  process.env.BENCH_INSTR_ROWS,
);
/**
 * Unmeasured calls before a row's first window: V8 was still optimizing the path at 1,500 and
 * had stopped by about 8,000 calls of all rows together (`--trace-opt`).
 */
const WARMUP_SINGLES = Number(process.env.BENCH_INSTR_WARMUP ?? 5000);
/**
 * Tracing on as `npm run bench` runs it, except that the batch processor exports only full batches
 * (512 spans): under valgrind a call takes about a hundred times longer, and a 500 ms delay would
 * export every few calls, a cost per call that a router at full speed (a full batch every 170
 * single calls at 3,000 calls/s) does not pay.
 */
const TRACING_ON_UNDER_VALGRIND = (endpoint: string): Record<string, string> => ({ ...TRACING_ON(endpoint), OTEL_BSP_SCHEDULE_DELAY: '3600000' });
/** Under valgrind the router boots in about a minute; the default 60 s is too short. */
const BOOT_TIMEOUT_MS = 600_000;

/** A count as the table shows it: whole, with thousands separated. */
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Instructions per tool call (per entry for a batch), one figure per measured window. */
type Counts = number[][];

/** One POST on the keep-alive agent; resolves with the body, rejects unless every call in it succeeded. */
function post(agent: Agent, url: string, body: string): Promise<void> {
  return new Promise((resolvePost, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { ...JSON_HEADERS, 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        res.statusCode === 200 && okBody(text) ? resolvePost() : reject(new Error(`failed call: HTTP ${res.statusCode} ${text.slice(0, 300)}`)),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Waits (unmeasured) until a call of this row succeeds: under valgrind a backend's first connect
 * can take longer than its timeout, and the backend is then down until it reconnects.
 */
async function untilAnswered(agent: Agent, url: string, body: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await post(agent, url, body);
    } catch (err) {
      if (attempt >= 600) throw err;
      await sleep(500);
    }
  }
}

/**
 * One `callgrind_control` command. Valgrind reads commands only while the program runs, so the
 * router is woken with a cheap GET every 20 ms until the command has been taken.
 */
async function control(router: RouterProc, health: string, args: string[]): Promise<void> {
  let done = false;
  const command = new Promise<void>((resolveCommand, reject) =>
    execFile('callgrind_control', [...args, String(router.pid)], (err, stdout, stderr) => {
      done = true;
      if (err) reject(new Error(`callgrind_control ${args.join(' ')}: ${stderr || stdout || err.message}`));
      else resolveCommand();
    }),
  );
  while (!done) {
    await fetch(health).then(
      (r) => r.arrayBuffer(),
      () => undefined,
    );
    await sleep(20);
  }
  await command;
}

/**
 * The instruction count of dump number `n` in `dir`, of the main thread (callgrind's thread 1):
 * the JavaScript, the event loop and the GC's own share. V8's background threads (the optimizing
 * compiler above all) are left out: how much of their work falls into a window follows their
 * scheduling, and counting them moved a window by ±40%.
 */
function dumpTotal(dir: string, n: number): number {
  const file = join(dir, `callgrind.out.${n}-01`);
  if (!existsSync(file)) throw new Error(`callgrind wrote no dump ${file}`);
  const total = /^(?:totals|summary):\s+(\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!total) throw new Error(`no totals line in ${file}`);
  if (!KEEP) for (const f of readdirSync(dir)) if (f.startsWith(`callgrind.out.${n}-`)) rmSync(join(dir, f));
  return Number(total[1]);
}

/** One build's router under callgrind: every row, each warmed up, then measured `WINDOWS` times. */
async function countBuild(dir: string, routerChild: string | undefined, label: string, env?: Record<string, string>): Promise<Counts> {
  const dumps = mkdtempSync(KEEP ? join(tmpdir(), 'centralmcp-callgrind-') : join(dir, 'callgrind-'));
  if (KEEP) process.stderr.write(`${label}: callgrind dumps in ${dumps}\n`);
  const nullPort = await freePort();
  const nul = await startNullHttp(nullPort);
  const launcher = {
    command: 'valgrind',
    args: [
      '--tool=callgrind',
      '--instr-atstart=no',
      `--callgrind-out-file=${join(dumps, 'callgrind.out')}`,
      '--separate-threads=yes',
      '--dump-line=no',
      '--compress-strings=no',
      '--quiet',
    ],
  };
  const router = await startRouter(dir, nullConfig(`http://127.0.0.1:${nullPort}/mcp`), {
    launcher,
    startTimeoutMs: BOOT_TIMEOUT_MS,
    ...(env ? { env } : {}),
    ...(routerChild ? { routerChild } : {}),
  });
  const health = router.url.replace(/\/mcp$/, '/health/live');
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const counts: Counts = [];
    let dumped = 0;
    for (const row of ROWS_COUNTED) {
      const body = bodyOf(row);
      const perRequest = row.shape === 'batch' ? BATCH_SIZE : 1;
      const warmups = Math.ceil(WARMUP_SINGLES / perRequest);
      const calls = row.shape === 'batch' ? BATCHES : CALLS;
      await untilAnswered(agent, router.url, body);
      // A warm-up call is not counted: one that fails (under valgrind on a loaded machine a backend
      // can miss its deadline and be marked down) waits for the backend to answer again.
      for (let i = 0; i < warmups; i++) await post(agent, router.url, body).catch(() => untilAnswered(agent, router.url, body));
      const windows: number[] = [];
      for (let w = 0, retries = 0; w < WINDOWS; w++) {
        // Full GCs first (uninstrumented): every window starts with an empty young generation, so
        // each holds the same scavenges and no window pays for an earlier one's garbage.
        await router.heap();
        await control(router, health, ['--instr=on']);
        await control(router, health, ['--zero']);
        const failed = await (async () => {
          for (let i = 0; i < calls; i++) await post(agent, router.url, body);
        })().then(
          () => undefined,
          (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
        );
        await control(router, health, ['--dump']);
        await control(router, health, ['--instr=off']);
        const total = dumpTotal(dumps, ++dumped);
        // A window with a failed call (its backend missed a deadline under valgrind and is down
        // for a moment) counts a different path: thrown away and measured again.
        if (failed !== undefined) {
          if (++retries > WINDOWS) throw failed;
          process.stderr.write(`${label}, ${row.name}: a window had a failed call, measured again\n`);
          await untilAnswered(agent, router.url, body);
          w--;
          continue;
        }
        windows.push(total / (calls * perRequest));
      }
      process.stderr.write(`${label}, ${row.name}: ${windows.map(fmt).join(', ')} instructions\n`);
      counts.push(windows);
    }
    return counts;
  } finally {
    agent.destroy();
    await router.stop();
    await nul.stop();
    if (!KEEP) rmSync(dumps, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  // `--tracing`: this tree once more with tracing on (always_on, exporting to a local receiver);
  // `--tracing-unsampled`: and once with the SDK loaded but sampling nothing (`always_off`: spans
  // entered and propagated, none recorded or exported), the router's own share of tracing's cost.
  const args = process.argv.slice(2);
  const traced = args.includes('--tracing');
  const unsampled = args.includes('--tracing-unsampled');
  const refs = args.filter((a) => a !== '--tracing' && a !== '--tracing-unsampled');
  const receiver = traced || unsampled ? await startCountingReceiver() : undefined;
  const { head, dirty } = headOfTree();
  const builds: { label: string; routerChild: string | undefined; env?: Record<string, string> }[] = [
    { label: `this tree (${head}${dirty ? ', with uncommitted changes' : ''})`, routerChild: undefined },
    ...(receiver && traced ? [{ label: 'this tree, tracing on', routerChild: undefined, env: TRACING_ON_UNDER_VALGRIND(receiver.endpoint) }] : []),
    ...(receiver && unsampled
      ? [
          {
            label: 'this tree, tracing on, sampling nothing',
            routerChild: undefined,
            env: { ...TRACING_ON_UNDER_VALGRIND(receiver.endpoint), OTEL_TRACES_SAMPLER: 'always_off' },
          },
        ]
      : []),
    ...refs.map((ref) => {
      const build = buildAt(ref);
      return { label: `${ref} (${build.sha.slice(0, 12)})`, routerChild: build.routerChild };
    }),
  ];
  const dir = mkdtempSync(join(tmpdir(), 'centralmcp-instructions-'));
  const results: { label: string; counts: Counts }[] = [];
  try {
    // Side by side: an instruction count does not depend on the other router's load.
    // Every build settles before a failure is thrown: the others' routers (under valgrind) are stopped, not left running.
    const counted = await Promise.allSettled(builds.map((build) => countBuild(dir, build.routerChild, build.label, build.env)));
    const failed = counted.find((c): c is PromiseRejectedResult => c.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    builds.forEach((build, i) => results.push({ label: build.label, counts: (counted[i] as PromiseFulfilledResult<Counts>).value }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await receiver?.close();
  }
  const base = results[0];
  const lines = [
    `# Router instructions per tool call (callgrind; ${WINDOWS} windows of ${CALLS} single calls or ${BATCHES} batches each, 1 connection)`,
    '',
    `| row | ${results.map((r) => r.label).join(' | ')} |${results.length > 1 ? ' this tree / other |' : ''}`,
    `|---|${results.map(() => '---:|').join('')}${results.length > 1 ? '---:|' : ''}`,
    ...ROWS_COUNTED.map((row, r) => {
      const cells = results.map((res) => {
        const windows = res.counts[r];
        return `${fmt(median(windows))} (${fmt(Math.min(...windows))}–${fmt(Math.max(...windows))})`;
      });
      const ratios = results.slice(1).map((res) => (median(base.counts[r]) / median(res.counts[r])).toFixed(3));
      return `| ${row.name} | ${cells.join(' | ')} |${ratios.length > 0 ? ` ${ratios.join(', ')} |` : ''}`;
    }),
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  writeFileSync(join(OUT, 'instructions.md'), `${lines.join('\n')}\n`);
  writeFileSync(join(OUT, 'instructions.json'), JSON.stringify({ head, dirty, windows: WINDOWS, calls: CALLS, rows: ROWS_COUNTED, results }, null, 2));
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);

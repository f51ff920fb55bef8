/**
 * Where tracing's cost goes: `tsc -p bench/tsconfig.json && node dist/bench/tracing-profile.js`.
 * Routers with tracing off and on (always_on, exporting to a local receiver, as section 7 of
 * `npm run bench` runs them), one after another under the same load (4 connections, single calls,
 * or batches of 25 with BENCH_SHAPE=batch): router CPU per call, split by thread (the main thread,
 * and the others: V8's GC helpers above all), and a V8 CPU profile of each, summarized by area
 * and function and kept in bench-results/ for DevTools.
 *
 * Environment (optional): BENCH_MODES, a comma list of modes (`off`, `on`, `unsampled`, each with
 * optional `@VAR=value` settings and `@build=<dir>`: `modeOptions` in tracing-cost.ts), default `on,off`; BENCH_ROUNDS (default 1: the list is
 * run that many times in turn, and with more than one the median of each mode is printed at the
 * end, with its ratio to the first mode's); BENCH_SECONDS (default 8); BENCH_PROFILE=0 (CPU and
 * threads only, no profiler).
 */
import { mkdtempSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, load, loadAverages, nullConfig, startNullHttp, startRouter, toolCall } from './harness';
import { summarizeProfile } from './profile';
import { modeOptions, startCountingReceiver } from './tracing-cost';

const ROOT = join(__dirname, '..', '..');
const OUT = join(ROOT, 'bench-results');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const BATCH = process.env.BENCH_SHAPE === 'batch';

/** CPU µs of each thread of a process, by thread name (main, V8 workers, libuv…). */
function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const raw = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const name = raw.slice(raw.indexOf('(') + 1, raw.lastIndexOf(')'));
    const f = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    const us = ((Number(f[11]) + Number(f[12])) * 1e6) / 100;
    const key = tid === String(pid) ? 'main' : name;
    out.set(key, (out.get(key) ?? 0) + us);
  }
  return out;
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'trace-prof-'));
  const receiver = await startCountingReceiver();
  const nullPort = await freePort();
  const nul = await startNullHttp(nullPort);
  const body = BATCH
    ? toolCall('invoke_read_tool_batch', { calls: Array.from({ length: 25 }, () => ({ name: 'fast', server: 'null' })) })
    : toolCall('invoke_read_tool', { name: 'fast', server: 'null' });
  const perRequest = BATCH ? 25 : 1;
  console.log(`load average at start: ${loadAverages()}`);
  const modes = (process.env.BENCH_MODES ?? 'on,off').split(',');
  const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
  const measured = new Map<string, number[]>(modes.map((m) => [m, []]));
  for (let round = 0; round < rounds; round++)
    for (const mode of modes) {
      const router = await startRouter(dir, nullConfig(`http://127.0.0.1:${nullPort}/mcp`), modeOptions(mode, receiver.endpoint));
      await load({ url: router.url, body, connections: 4, durationSeconds: 2 });
      const file = join(OUT, `router-tracing-${mode.replace(/[^\w.-]+/g, '_')}${BATCH ? '-batch' : ''}.cpuprofile`);
      const profiling = process.env.BENCH_PROFILE !== '0';
      const stop = profiling ? await router.profile(file) : () => Promise.resolve();
      const before = threadCpu(router.pid);
      const r = await load({ url: router.url, body, connections: 4, durationSeconds: SECONDS, watch: { router: router.pid } });
      const after = threadCpu(router.pid);
      await stop();
      for (const [k, v] of after) console.log(`thread ${k}: ${((v - (before.get(k) ?? 0)) / (r.requests * perRequest)).toFixed(1)} µs per call`);
      measured.get(mode)!.push(r.cpuPerRequest.router / perRequest);
      if (!profiling) {
        console.log(`tracing ${mode}: ${(r.cpuPerRequest.router / perRequest).toFixed(0)} µs CPU per call`);
        await router.stop();
        continue;
      }
      await router.stop();
      const s = summarizeProfile(file, ROOT, 40);
      const per = (ms: number) => ((ms * 1000) / (r.requests * perRequest)).toFixed(1);
      console.log(
        `\n## tracing ${mode}: ${(r.cpuPerRequest.router / perRequest).toFixed(0)} µs CPU per call, ${r.requests} requests, busy ${s.totalMs.toFixed(0)} ms`,
      );
      console.log('\n### by area');
      for (const row of s.byArea) console.log(`${per(row.ms).padStart(7)} µs  ${row.where}`);
      console.log('\n### inclusive');
      for (const row of s.inclusiveByFunction) console.log(`${per(row.ms).padStart(7)} µs  ${row.where}`);
      console.log('\n### self');
      for (const row of s.selfByFunction) console.log(`${per(row.ms).padStart(7)} µs  ${row.where}`);
    }
  if (rounds > 1) {
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const first = median(measured.get(modes[0])!);
    console.log(`\n| mode | router CPU µs per call, median of ${rounds} | runs | / ${modes[0]} |\n|---|---:|---|---:|`);
    for (const [mode, xs] of measured)
      console.log(`| ${mode} | ${median(xs).toFixed(0)} | ${xs.map((x) => x.toFixed(0)).join(' ')} | ${(median(xs) / first).toFixed(2)} |`);
  }
  console.log(`\nreceiver: ${receiver.requests} exports, ${(receiver.bytes / 1048576).toFixed(1)} MiB; load average at end: ${loadAverages()}`);
  await nul.stop();
  await receiver.close();
}

void main();

/**
 * Tracing's cost in ratios that hold on a noisy machine: `tsc -p bench/tsconfig.json && node
 * dist/bench/tracing-rotation.js`. One router per mode, all started once and kept running, measured
 * in turn in short runs (4 connections, single calls or, with BENCH_SHAPE=batch, batches of 25)
 * round after round; each round's router CPU per call is divided by the first mode's in that same
 * round, and the median of those ratios is printed. Runs a few seconds apart see the same machine,
 * where two runs of one router minutes apart differ by up to a quarter on this shared 2-core box.
 *
 * Environment (optional): BENCH_MODES (comma list, `modeOptions` in tracing-cost.ts; default
 * `off,unsampled,on`), BENCH_ROUNDS (default 12), BENCH_SECONDS per run (default 2).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, load, loadAverages, median, nullConfig, type RouterProc, startNullHttp, startRouter, toolCall } from './harness';
import { modeOptions, startCountingReceiver } from './tracing-cost';

const BATCH = process.env.BENCH_SHAPE === 'batch';
const MODES = (process.env.BENCH_MODES ?? 'off,unsampled,on').split(',');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'trace-rotation-'));
  const receiver = await startCountingReceiver();
  const nullPort = await freePort();
  const nul = await startNullHttp(nullPort);
  const routers: RouterProc[] = [];
  try {
    for (const mode of MODES) routers.push(await startRouter(dir, nullConfig(`http://127.0.0.1:${nullPort}/mcp`), modeOptions(mode, receiver.endpoint)));
    const body = BATCH
      ? toolCall('invoke_read_tool_batch', { calls: Array.from({ length: 25 }, () => ({ name: 'fast', server: 'null' })) })
      : toolCall('invoke_read_tool', { name: 'fast', server: 'null' });
    const perRequest = BATCH ? 25 : 1;
    console.log(`load average at start: ${loadAverages()}`);
    // Warm: every router's code compiled before any run counts (BENCHMARKS.md, "once the code is compiled").
    for (const router of routers) await load({ url: router.url, body, connections: 4, durationSeconds: 3 });
    const cpu: number[][] = MODES.map(() => []);
    for (let round = 0; round < ROUNDS; round++)
      for (const [i, router] of routers.entries()) {
        const r = await load({ url: router.url, body, connections: 4, durationSeconds: SECONDS, watch: { router: router.pid } });
        cpu[i].push(r.cpuPerRequest.router / perRequest);
      }
    console.log(`\n| mode | router CPU µs per ${BATCH ? 'batch entry' : 'call'}, median of ${ROUNDS} | / ${MODES[0]}, median of the rounds' ratios | ratios |`);
    console.log('|---|---:|---:|---|');
    for (const [i, mode] of MODES.entries()) {
      const ratios = cpu[i].map((c, round) => c / cpu[0][round]);
      console.log(`| ${mode} | ${median(cpu[i]).toFixed(0)} | ${median(ratios).toFixed(2)} | ${ratios.map((x) => x.toFixed(2)).join(' ')} |`);
    }
    console.log(`\nreceiver: ${receiver.requests} exports; load average at end: ${loadAverages()}`);
  } finally {
    await Promise.allSettled(routers.map((r) => r.stop()));
    await nul.stop();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();

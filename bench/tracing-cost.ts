import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { BATCH_SIZE } from './call-rows';
import { sdkAlone } from './tracing-floor';
import { freePort, load, type LoadResult, median, medianOf, nullConfig, type Proc, type RouterProc, startNullHttp, startRouter, toolCall } from './harness';

/** What the tracing section needs of `npm run bench`'s runner. */
export interface SectionContext {
  dir: string;
  seconds: number;
  /** Runs per figure; the median is kept. */
  runs: number;
  say(line?: string): void;
  track<T extends Proc>(p: Promise<T>): Promise<T>;
  stop(proc: Proc): Promise<void>;
}

/**
 * Tracing on as the bench runs it: every request sampled, spans batched to a local OTLP receiver.
 * The queue is large enough that no span is dropped (the SDK's default of 2048 per 5 s would drop
 * most of them at these rates, which would make tracing look cheaper than exporting is).
 */
export const TRACING_ON = (endpoint: string): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_TRACES_SAMPLER: 'always_on',
  OTEL_BSP_SCHEDULE_DELAY: '500',
  OTEL_BSP_MAX_QUEUE_SIZE: '200000',
});
/** Few connections: on this shared 2-core machine 16 leave batches of 25 waiting past a run's end. */
const CONNECTIONS = 4;

/** The goal: tracing on costs at most this many times the router CPU of tracing off. */
export const TRACING_GOAL = 1.25;

/** Tracing on with nothing sampled: spans started, entered and propagated, none recorded or exported. */
const UNSAMPLED = (endpoint: string): Record<string, string> => ({ ...TRACING_ON(endpoint), OTEL_TRACES_SAMPLER: 'always_off' });

/**
 * How the tracing scripts (tracing-profile.ts, tracing-rotation.ts) start the router of one mode:
 * `off`, `on` (as section 7 runs it) or `unsampled` (on, sampling nothing), each optionally followed
 * by `@VAR=value` settings for the router's environment (`on@OTEL_BSP_MAX_EXPORT_BATCH_SIZE=64`);
 * `@build=<dir>` runs the router compiled into another folder of this tree, named from its root (a copy of dist/ made
 * before a change), so two builds are measured side by side.
 */
export function modeOptions(mode: string, endpoint: string): { env?: Record<string, string>; routerChild?: string } {
  const [name, ...settings] = mode.split('@');
  const { build, ...extra } = Object.fromEntries(settings.map((kv): [string, string] => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
  const base = name === 'off' ? {} : name === 'unsampled' ? UNSAMPLED(endpoint) : name === 'on' ? TRACING_ON(endpoint) : undefined;
  if (base === undefined) throw new Error(`unknown tracing mode ${JSON.stringify(name)}: off, on or unsampled`);
  return { env: { ...base, ...extra }, ...(build !== undefined ? { routerChild: join(__dirname, '..', '..', build, 'bench', 'router-child.js') } : {}) };
}

/** The routers section 7 measures side by side. */
type TracingMode = 'off' | 'unsampled' | 'on';
const MODE_LABEL: Record<TracingMode, string> = { off: 'off', unsampled: 'on, sampling nothing', on: 'on' };

/**
 * Section 7: router CPU per single call and per batch entry with tracing off and on, routers side
 * by side against one null HTTP backend, measured in alternation in short runs (off, unsampled, on,
 * off, …: three times as many rounds as the bench's runs, of 2 s for its default 5), each mode's
 * ratio to off taken round by round, since runs seconds apart see the same machine where runs a
 * minute apart differ by a quarter here, and the median of those ratios kept. "On" samples
 * every request (`always_on`) and exports over OTLP/HTTP protobuf to a receiver in this process
 * that reads and counts what it is sent (its CPU is not the router's). "On, sampling nothing"
 * (`always_off`) splits what tracing adds: the router's own work (span handles, contexts, the
 * trace context sent to the backend) and the SDK's unsampled spans, against what recording and
 * exporting add on top (the SDK's, with the garbage collection of the spans it holds).
 */
export async function tracingCost(c: SectionContext): Promise<{
  rows: Record<string, LoadResult>;
  ratios: { single: number; entry: number };
  /** Router CPU of "on, sampling nothing" against off. */
  unsampledRatios: { single: number; entry: number };
  exported: { requests: number; bytes: number };
  /** CPU µs per call of the SDK alone (bench/tracing-floor.ts). */
  floor: { single: number; entry: number };
}> {
  c.say('## 7. Tracing: router CPU with OpenTelemetry off and on');
  c.say();
  const receiver = await startCountingReceiver();
  const nullPort = await freePort();
  const nul = await c.track(startNullHttp(nullPort));
  const config = nullConfig(`http://127.0.0.1:${nullPort}/mcp`);
  const start = (mode: TracingMode) => c.track(startRouter(c.dir, config, modeOptions(mode, receiver.endpoint)));
  const routers: Record<TracingMode, RouterProc> = { off: await start('off'), unsampled: await start('unsampled'), on: await start('on') };
  const rounds = c.runs * 3;
  const seconds = Math.max(1, Math.round(c.seconds / 2.5));
  const shapes = [
    {
      shape: 'single call',
      body: toolCall('invoke_read_tool', { name: 'fast', server: 'null' }),
      perRequest: 1,
      ok: (b: string) => b.includes('"status":"ok"'),
    },
    {
      shape: `batch of ${BATCH_SIZE}, per entry`,
      body: toolCall('invoke_read_tool_batch', { calls: Array.from({ length: BATCH_SIZE }, () => ({ name: 'fast', server: 'null' })) }),
      perRequest: BATCH_SIZE,
      ok: (b: string) => b.includes('"failed":0'),
    },
  ];
  c.say(
    `Three routers (off; on, sampling nothing; on, every request sampled and exported) measured in turn, ${rounds} rounds of ${seconds} s per shape after a warm-up; each figure is the median of its rounds, each ratio the median of the rounds' ratios to off.`,
  );
  c.say();
  c.say(
    `| shape (HTTP backend, ${CONNECTIONS} conns) | tracing | tool calls/s | request p99 ms | router CPU µs per tool call | / off, median of the rounds | failures |`,
  );
  c.say('|---|---|---:|---:|---:|---:|---:|');
  const rows: Record<string, LoadResult> = {};
  const cpu: Record<string, number> = {};
  /** Median of the rounds' ratios to off, by shape and mode. */
  const ratio: Record<string, number> = {};
  const modes = ['off', 'unsampled', 'on'] as const;
  for (const s of shapes) {
    const run = (mode: TracingMode, seconds: number, watch: boolean) =>
      load({
        url: routers[mode].url,
        body: s.body,
        connections: CONNECTIONS,
        durationSeconds: seconds,
        verify: s.ok,
        watch: watch ? { router: routers[mode].pid } : {},
      });
    // Warm: each router's code compiled before any run counts.
    for (const mode of modes) await run(mode, Math.min(3, c.seconds), false);
    const runs: Record<TracingMode, LoadResult[]> = { off: [], unsampled: [], on: [] };
    for (let i = 0; i < rounds; i++) for (const mode of modes) runs[mode].push(await run(mode, seconds, true));
    const perCall = (r: LoadResult) => r.cpuPerRequest.router / s.perRequest;
    for (const mode of modes) {
      const r = medianOf(runs[mode]);
      rows[`${s.shape}/${mode}`] = r;
      cpu[`${s.shape}/${mode}`] = perCall(r);
      ratio[`${s.shape}/${mode}`] = median(runs[mode].map((run, i) => perCall(run) / perCall(runs.off[i])));
      const shown = mode !== 'off' ? `${ratio[`${s.shape}/${mode}`].toFixed(2)}×` : '';
      c.say(
        `| ${s.shape} | ${MODE_LABEL[mode]} | ${Math.round(r.requestsPerSecond * s.perRequest).toLocaleString('en-US')} | ${r.p99.toFixed(2)} | ${Math.round(cpu[`${s.shape}/${mode}`])} | ${shown} | ${r.failures} |`,
      );
    }
  }
  const ratioOf = (mode: TracingMode) => ({ single: ratio[`single call/${mode}`], entry: ratio[`${shapes[1].shape}/${mode}`] });
  const ratios = ratioOf('on');
  const unsampledRatios = ratioOf('unsampled');
  for (const mode of modes) await c.stop(routers[mode]);
  const exported = { requests: receiver.requests, bytes: receiver.bytes };
  c.say();
  c.say(
    `Goal: on at most ${TRACING_GOAL}× off. Single call ${ratios.single.toFixed(2)}× (${ratios.single <= TRACING_GOAL ? 'met' : '**missed**'}), batch entry ${ratios.entry.toFixed(2)}× (${ratios.entry <= TRACING_GOAL ? 'met' : '**missed**'}). The receiver got ${exported.requests.toLocaleString('en-US')} exports, ${(exported.bytes / 1048576).toFixed(1)} MiB.`,
  );
  c.say();
  // What the SDK costs with no router around it: the least "on" can add (bench/tracing-floor.ts).
  const floorCalls = Math.max(20_000, c.seconds * 12_000);
  const floor = {
    single: median(await repeat(c.runs, () => sdkAlone(TRACING_ON(receiver.endpoint), 'single', floorCalls))),
    entry: median(await repeat(c.runs, () => sdkAlone(TRACING_ON(receiver.endpoint), 'entry', floorCalls))),
  };
  const least = (shape: 'single' | 'entry', off: number) => `${Math.round(floor[shape])} µs, so on / off ≥ ${((off + floor[shape]) / off).toFixed(2)}×`;
  c.say(
    `The SDK alone (its spans for the same calls started, ended and exported the same way, in a process with no router; median of ${c.runs}): single call ${least('single', cpu['single call/off'])}; batch entry ${least('entry', cpu[`${shapes[1].shape}/off`])}.`,
  );
  c.say();
  // What tracing adds, split: sampling nothing (the router's own work and the SDK's unsampled
  // spans), then what recording and exporting add on top of it.
  const split = (shape: string) => {
    const off = cpu[`${shape}/off`];
    const [unsampled, on] = [ratio[`${shape}/unsampled`], ratio[`${shape}/on`]];
    return `${Math.round((unsampled - 1) * off)} µs sampling nothing, ${Math.round((on - unsampled) * off)} µs more recording and exporting`;
  };
  c.say(`What tracing on adds per call: single call ${split('single call')}; batch entry ${split(shapes[1].shape)}.`);
  c.say();
  await c.stop(nul);
  await receiver.close();
  return { rows, ratios, unsampledRatios, exported, floor };
}

async function repeat<T>(times: number, run: () => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < times; i++) out.push(await run());
  return out;
}

/** An OTLP/HTTP endpoint that reads each export whole, counts it and answers success. */
export async function startCountingReceiver(): Promise<{ endpoint: string; requests: number; bytes: number; close(): Promise<void> }> {
  const counts = { requests: 0, bytes: 0 };
  const server: Server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (counts.bytes += chunk.length));
    req.on('end', () => {
      counts.requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get requests() {
      return counts.requests;
    },
    get bytes() {
      return counts.bytes;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

import { type ChildProcess, fork, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { cpus, freemem, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';

/**
 * Processes and load for the benchmarks. Everything measured runs in a process of its own (the
 * router, the backends, the bare responder), so its CPU time can be read from /proc and nothing of
 * the load generator's own work is booked to it.
 */

/** The compiled fault server, the null backend of every figure here. */
export const FAULT_SERVER = join(__dirname, '..', 'test', 'fixtures', 'fault-server.js');
const ROUTER_CHILD = join(__dirname, 'router-child.js');
const BARE_RESPONDER = join(__dirname, 'bare-responder.js');
/** clock ticks per second of /proc/<pid>/stat utime and stime (getconf CLK_TCK; 100 on Linux). */
const CLK_TCK = 100;

export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** User + system CPU time of a process, in microseconds (10 ms resolution). */
export function cpuMicros(pid: number): number {
  const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  // Fields after the command: state(0) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(11) stime(12)
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLK_TCK;
}

/** Resident set size of a process, in bytes. */
export function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : NaN;
}

/** The load averages over 1, 5 and 15 minutes, as the scripts print them (`1.52 0.80 0.32`). */
export function loadAverages(separator = ' '): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(separator);
}

export interface Machine {
  cpu: string;
  cores: number;
  mhz: number;
  memoryGiB: number;
  freeGiB: number;
  kernel: string;
  node: string;
  loadAtStart: number[];
}

export function machine(): Machine {
  const c = cpus();
  // Some VMs report 0 MHz through os.cpus(); /proc/cpuinfo may know better.
  const mhz = c[0]?.speed || Number(/cpu MHz\s*:\s*([\d.]+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 0);
  return {
    cpu: c[0]?.model ?? 'unknown',
    cores: c.length,
    mhz: Math.round(mhz),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    freeGiB: Math.round((freemem() / 2 ** 30) * 10) / 10,
    kernel: release(),
    node: process.version,
    loadAtStart: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/** A child process we started and must stop. */
export interface Proc {
  child: ChildProcess;
  pid: number;
  stop(): Promise<void>;
}

function procOf(child: ChildProcess): Proc {
  return {
    child,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Resolves once `what` printed `pattern` on stderr. */
function waitForStderr(child: ChildProcess, pattern: RegExp, what: string): Promise<void> {
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start: ${text}`)), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      text = (text + chunk.toString()).slice(-4000);
      if (pattern.test(text)) {
        clearTimeout(timer);
        child.stderr!.resume();
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}: ${text}`));
    });
  });
}

/** The fault server over HTTP: with no fault asked for, the null backend. */
export async function startNullHttp(port: number, args: string[] = []): Promise<Proc> {
  const child = spawn(process.execPath, [FAULT_SERVER, '--http', String(port), ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { PATH: process.env.PATH ?? '' },
  });
  await waitForStderr(child, /listening on port/, 'null backend');
  return procOf(child);
}

/** A bare node:http JSON-RPC responder: the ceiling of any HTTP JSON-RPC server on this box. */
export async function startBareResponder(port: number): Promise<Proc> {
  const child = spawn(process.execPath, [BARE_RESPONDER, String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  await waitForStderr(child, /listening/, 'bare responder');
  return procOf(child);
}

export interface RouterProc extends Proc {
  url: string;
  metricsUrl: string;
  /** Post-GC heap and RSS of the router, measured inside it. */
  heap(): Promise<{ heapUsed: number; rss: number }>;
  /** Starts the V8 CPU profiler in the router; the returned function stops it and writes `file`. */
  profile(file: string): Promise<() => Promise<void>>;
}

/**
 * The router in a child process, started the way main.ts starts it (config file and environment,
 * production log level and audit sink), plus an IPC hook that runs a full GC and reports the heap.
 */
export async function startRouter(
  dir: string,
  fileConfig: Record<string, unknown>,
  /**
   * `routerChild`: another build's compiled router-child.js (bench/compare.ts runs an earlier
   * commit's router). `launcher`: a program that runs node (valgrind for bench/instructions.ts),
   * with its own arguments before node's path; `startTimeoutMs` bounds the boot (default 60 s).
   */
  opts: { env?: Record<string, string>; routerChild?: string; launcher?: { command: string; args: string[] }; startTimeoutMs?: number } = {},
): Promise<RouterProc> {
  const port = await freePort();
  const configPath = join(dir, `router-${port}.json`);
  writeFileSync(configPath, JSON.stringify(fileConfig, null, 2));
  const nodeArgs = ['--expose-gc'];
  const startTimeoutMs = opts.startTimeoutMs ?? 60_000;
  const child = fork(opts.routerChild ?? ROUTER_CHILD, [], {
    ...(opts.launcher ? { execPath: opts.launcher.command, execArgv: [...opts.launcher.args, process.execPath, ...nodeArgs] } : { execArgv: nodeArgs }),
    // stdout carries the JSON logs and the audit lines: thrown away, but written (production cost).
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      CENTRALMCP_ROUTER_CONFIG: configPath,
      CENTRALMCP_ROUTER_PORT: String(port),
      ...opts.env,
    },
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`router did not start: ${stderr}`)), startTimeoutMs);
    child.once('message', () => {
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`router exited with ${code}: ${stderr}`));
    });
  });
  const base = `http://127.0.0.1:${port}`;
  await waitReady(`${base}/health/ready`, startTimeoutMs);
  const proc = procOf(child);
  return {
    ...proc,
    url: `${base}/mcp`,
    metricsUrl: `${base}/metrics`,
    heap: () => ask<{ heapUsed: number; rss: number }>(child, 'heap'),
    async profile(file: string) {
      await ask(child, 'profile-start');
      return async () => void (await ask(child, `profile-stop:${file}`));
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** One IPC request to the router child and its one answer. */
function ask<T>(child: ChildProcess, message: string): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (m) => resolve(m as T));
    child.send(message);
  });
}

async function waitReady(url: string, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await sleep(100);
  }
  throw new Error(`${url} never became ready`);
}

/** The router's config of the figures: the null backend over HTTP (`null`) and over stdio (`nullstdio`). */
export const nullConfig = (nullUrl: string) => ({
  backends: {
    null: { transport: 'http', url: nullUrl, timeoutMs: 30_000 },
    nullstdio: { transport: 'stdio', command: process.execPath, args: [FAULT_SERVER, '--name', 'nullstdio'], timeoutMs: 30_000 },
  },
});

/** One tools/call body, as a client would POST it. */
export function toolCall(name: string, args: Record<string, unknown>, id: number | string = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
}

export interface LoadResult {
  requestsPerSecond: number;
  requests: number;
  p50: number;
  p99: number;
  failures: number;
  /** CPU µs per request of each watched process, by name. */
  cpuPerRequest: Record<string, number>;
  seconds: number;
}

export interface LoadOptions {
  url: string;
  body?: string;
  bodies?: string[];
  connections: number;
  durationSeconds?: number;
  amount?: number;
  overallRate?: number;
  /** A response body is a failure unless this holds (autocannon counts it as a mismatch). */
  verify?: (body: string) => boolean;
  /** Processes whose CPU time is booked per request. */
  watch?: Record<string, number>;
}

/**
 * One autocannon run. Latencies come from each response's own timing (float ms), not from
 * autocannon's histogram, whose integer milliseconds are too coarse for sub-millisecond calls.
 */
export async function load(o: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const cpuBefore = Object.fromEntries(Object.entries(o.watch ?? {}).map(([k, pid]) => [k, cpuMicros(pid)]));
  const started = performance.now();
  const instance = autocannon({
    url: o.url,
    method: 'POST',
    headers: JSON_HEADERS,
    ...(o.bodies ? { requests: o.bodies.map((body) => ({ method: 'POST', body })) } : { body: o.body }),
    connections: o.connections,
    ...(o.amount !== undefined ? { amount: o.amount } : { duration: o.durationSeconds ?? 5 }),
    ...(o.overallRate !== undefined ? { overallRate: o.overallRate } : {}),
    timeout: 30,
    ...(o.verify ? { verifyBody: o.verify } : {}),
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => latencies.push(responseTime));
  const result = await instance;
  const seconds = (performance.now() - started) / 1000;
  const requests = result.requests.total;
  const cpuPerRequest = Object.fromEntries(Object.entries(o.watch ?? {}).map(([k, pid]) => [k, (cpuMicros(pid) - cpuBefore[k]) / Math.max(1, requests)]));
  return {
    requestsPerSecond: requests / seconds,
    requests,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failures: result.errors + result.timeouts + result.non2xx + result.mismatches,
    cpuPerRequest,
    seconds,
  };
}

export interface PacedResult {
  sent: number;
  p50: number;
  p99: number;
  failures: number;
}

/**
 * Open-loop load at a fixed rate: one request every 1/rate s whether or not earlier ones have
 * answered, each timed from when it was due (not when it went out), so a stall is measured in full
 * instead of being hidden by a client that waits (coordinated omission). For latency under load.
 */
export async function paced(o: { url: string; body: string; rate: number; seconds: number; verify: (body: string) => boolean }): Promise<PacedResult> {
  // Latency is counted from when a request was due, so a GC pause of this process would be booked
  // to the router: collect what earlier loads left behind first (run with --expose-gc).
  (globalThis as { gc?: () => void }).gc?.();
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const interval = 1000 / o.rate;
  const total = Math.round(o.rate * o.seconds);
  const latencies: number[] = [];
  let failures = 0;
  const inFlight: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait >= 1) await sleep(wait);
    inFlight.push(
      new Promise<void>((resolve) => {
        const req = request(o.url, { method: 'POST', agent, headers: JSON_HEADERS }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            latencies.push(performance.now() - due);
            if (res.statusCode !== 200 || !o.verify(Buffer.concat(chunks).toString('utf8'))) failures++;
            resolve();
          });
        });
        req.on('error', () => {
          failures++;
          resolve();
        });
        req.end(o.body);
      }),
    );
  }
  await Promise.all(inFlight);
  agent.destroy();
  return { sent: total, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failures };
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** The median of each field over several runs. */
export function medianOf(runs: LoadResult[]): LoadResult {
  const pick = (f: (r: LoadResult) => number) => median(runs.map(f));
  const cpuKeys = Object.keys(runs[0]?.cpuPerRequest ?? {});
  return {
    requestsPerSecond: pick((r) => r.requestsPerSecond),
    requests: pick((r) => r.requests),
    p50: pick((r) => r.p50),
    p99: pick((r) => r.p99),
    failures: Math.max(...runs.map((r) => r.failures)),
    cpuPerRequest: Object.fromEntries(cpuKeys.map((k) => [k, pick((r) => r.cpuPerRequest[k])])),
    seconds: pick((r) => r.seconds),
  };
}

/** Least-squares slope of y over x. */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/**
 * `npm run bench:peers`: the router beside the gateways its users compare it with, in one run on
 * one machine, each fronting the same filesystem server over stdio and reading the same 1 KB file.
 *
 * The peers are installed from npm at pinned versions into `.tmp/bench-peers/` (once; later runs
 * reuse them); a peer that cannot be installed or started is named in the output, not left out
 * silently. Each round starts every target in turn (the order rotates, so drift of the machine hits
 * every target alike), measures it and stops it:
 *
 * - added latency: median of sequential calls through the target, minus the median of the same
 *   calls made to the filesystem server directly over stdio;
 * - calls/s under light load (one session, 4 calls in flight) and at 16 sessions (one call in
 *   flight each);
 * - CPU per call: user + system time of the gateway's own process (`/proc/<pid>/stat`) over both
 *   loads, divided by their calls; the backends it starts are not counted. Then both loads run
 *   again and give "CPU per call, warm": the first pass still holds V8 compiling the target's
 *   code (its first few thousand calls cost several times the later ones), the second does not;
 * - RSS after boot and a warm-up of 200 calls.
 *
 * Every client is a plain JSON-RPC session (bench/peer-session.ts), the same for every target. How
 * each peer runs: mcp-proxy with `--server stream`; supergateway with `--stateful` (its default
 * stateless mode starts a backend per POST); mcp-hub over its SSE endpoint (the only one it
 * serves), with its marketplace cache seeded in its own data folder so that no start reaches the
 * network.
 *
 * Environment (optional): BENCH_PEERS_ROUNDS (default 3), BENCH_PEERS_CALLS (calls per load,
 * default 2000), BENCH_PEERS_ONLY (a comma-separated list of the peers to run, default all),
 * BENCH_PEERS_BASELINE (a git ref: that commit's router runs as one more target, built as
 * bench:compare builds it, so this tree's router is compared with it in the same rounds). Writes
 * dist/bench/peers.{md,json}.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildAt } from './builds';
import { cpuMicros, freePort, machine, median, rssBytes, startRouter } from './harness';
import { sseSession, stdioSession, streamableSession, type PeerSession } from './peer-session';

const ROOT = resolve(__dirname, '..', '..');
const PEERS_DIR = join(ROOT, '.tmp', 'bench-peers');
const ROUNDS = Number(process.env.BENCH_PEERS_ROUNDS ?? 3);
const CALLS = Number(process.env.BENCH_PEERS_CALLS ?? 2000);
const ONLY = (process.env.BENCH_PEERS_ONLY ?? '')
  .split(',')
  .map((name) => name.trim())
  .filter((name) => name !== '');
const BASELINE = process.env.BENCH_PEERS_BASELINE;
const FS_SERVER = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');

/** The peers, pinned: package, version, and its bin inside the package. */
const PEERS = [
  { name: 'mcp-proxy', version: '6.7.19', bin: 'dist/bin/mcp-proxy.mjs' },
  { name: 'supergateway', version: '4.0.0', bin: 'dist/index.js' },
  { name: 'mcp-hub', version: '4.2.1', bin: 'dist/cli.js' },
] as const;

interface Running {
  pid: number;
  /** A new session to the target. */
  open(): Promise<PeerSession>;
  /** The tools/call params that read `path` through the target. */
  readParams(path: string): Record<string, unknown>;
  stop(): Promise<void>;
}

interface Target {
  name: string;
  start(dir: string, file: string): Promise<Running>;
}

interface Figures {
  latencyMs: number;
  lightPerSecond: number;
  heavyPerSecond: number;
  cpuMicrosPerCall: number;
  /** The same two loads run again at once: CPU per call once the target's code is compiled (V8 tiers functions up over the first few thousand calls). */
  warmCpuMicrosPerCall: number;
  rssMiB: number;
}

/** Installs one peer into its own folder unless that version is there; returns its bin, or why not. */
function install(peer: (typeof PEERS)[number]): string | Error {
  const dir = join(PEERS_DIR, peer.name);
  const manifest = join(dir, 'node_modules', peer.name, 'package.json');
  const installed = existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version : undefined;
  if (installed !== peer.version) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true }));
    try {
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--save-exact', `${peer.name}@${peer.version}`], {
        cwd: dir,
        stdio: 'pipe',
        timeout: 600_000,
      });
    } catch (err) {
      return new Error(`npm install ${peer.name}@${peer.version} failed: ${String((err as { stderr?: Buffer }).stderr ?? err).slice(-300)}`);
    }
  }
  return join(dir, 'node_modules', peer.name, peer.bin);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  // Each peer runs in its own process group with the backends it starts.
  const kill = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  kill('SIGTERM');
  const timer = setTimeout(() => kill('SIGKILL'), 5000);
  return exited.then(() => clearTimeout(timer));
}

/** Runs `check` until it returns a value (a thrown error counts as not yet), for at most 90 s. */
async function until<T>(check: () => Promise<T | undefined>, what: string, child?: ChildProcess): Promise<T> {
  const deadline = Date.now() + 90_000;
  let last = '';
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = String(err);
    }
    await sleep(250);
  }
  throw new Error(`${what} never became ready (${last})`);
}

/** The name under which a session's target lists the filesystem server's `read_text_file`. */
async function listedReadTool(open: () => Promise<PeerSession>): Promise<string | undefined> {
  const session = await open();
  try {
    const listed = (await session.call('tools/list', {})) as { tools: { name: string }[] };
    return listed.tools.find((t) => t.name.endsWith('read_text_file'))?.name;
  } finally {
    session.close();
  }
}

function peerTarget(name: (typeof PEERS)[number]['name'], version: string, bin: string): Target {
  return {
    name: `${name} ${version}`,
    async start(dir) {
      const port = await freePort();
      const backend = [process.execPath, FS_SERVER, dir];
      const home = mkdtempSync(join(tmpdir(), `${name}-home-`));
      const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: home };
      let args: string[];
      let sse = false;
      if (name === 'mcp-proxy') args = ['--port', String(port), '--host', '127.0.0.1', '--server', 'stream', '--', ...backend];
      else if (name === 'supergateway')
        args = [
          '--stdio',
          backend.map((a) => JSON.stringify(a)).join(' '),
          '--outputTransport',
          'streamableHttp',
          '--stateful',
          '--port',
          String(port),
          '--logLevel',
          'none',
        ];
      else if (name === 'mcp-hub') {
        sse = true;
        const config = join(home, 'mcp-servers.json');
        writeFileSync(config, JSON.stringify({ mcpServers: { files: { command: backend[0], args: backend.slice(1) } } }));
        // A fresh, non-empty marketplace cache: mcp-hub then starts without fetching its registry.
        env.XDG_DATA_HOME = join(home, 'data');
        mkdirSync(join(env.XDG_DATA_HOME, 'mcp-hub', 'cache'), { recursive: true });
        const registry = { registry: { servers: [{ id: 'none', name: 'none' }] }, lastFetchedAt: Date.now(), serverDocumentation: {} };
        writeFileSync(join(env.XDG_DATA_HOME, 'mcp-hub', 'cache', 'registry.json'), JSON.stringify(registry));
        args = ['--port', String(port), '--config', config];
      } else throw new Error(`no way to start ${String(name)}`);
      const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-1000)));
      const base = `http://127.0.0.1:${port}`;
      const open = () => (sse ? sseSession(`${base}/mcp`) : streamableSession(`${base}/mcp`));
      let tool: string;
      try {
        tool = await until(() => listedReadTool(open), name, child);
      } catch (err) {
        await stopChild(child);
        throw new Error(`${String(err)}; stderr: ${stderr}`, { cause: err });
      }
      return { pid: child.pid!, open, readParams: (path) => ({ name: tool, arguments: { path } }), stop: () => stopChild(child) };
    },
  };
}

const ROUTER_READ = (path: string) => ({ name: 'invoke_read_tool', arguments: { name: 'read_text_file', server: 'files', arguments: { path } } });

/** The router of this tree, or of another build (`routerChild`, bench/builds.ts). */
const routerTarget = (name: string, routerChild?: string): Target => ({
  name,
  async start(dir, file) {
    const config = { backends: { files: { transport: 'stdio', command: process.execPath, args: [FS_SERVER, dir] } } };
    const router = await startRouter(dir, config, routerChild ? { routerChild } : {});
    const open = () => streamableSession(router.url);
    const params = ROUTER_READ(file);
    // Ready once a read through it succeeds: its backend has connected and its tools are listed.
    await until(async () => {
      const session = await open();
      try {
        return ((await session.call('tools/call', params)) as { isError?: boolean }).isError ? undefined : true;
      } finally {
        session.close();
      }
    }, 'router');
    return {
      pid: router.pid,
      open,
      readParams: ROUTER_READ,
      stop: () => router.stop(),
    };
  },
});

const ROUTER = routerTarget('router');

/** `total` calls with `inFlight` at a time, spread over `sessions`; resolves with the seconds taken. */
async function drive(sessions: PeerSession[], inFlight: number, total: number, params: Record<string, unknown>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async (_, worker) => {
      const session = sessions[worker % sessions.length];
      while (next < total) {
        next += 1;
        await session.call('tools/call', params);
      }
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

async function sequentialMs(session: PeerSession, params: Record<string, unknown>, calls: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < calls; i += 1) {
    const started = process.hrtime.bigint();
    await session.call('tools/call', params);
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return times;
}

const progress = (what: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${what}\n`);

async function measure(target: Target, dir: string, file: string): Promise<Figures> {
  progress(`${target.name}: starting`);
  const running = await target.start(dir, file);
  try {
    const params = running.readParams(file);
    const light = await running.open();
    await sequentialMs(light, params, 200);
    await sleep(1000);
    const rssMiB = rssBytes(running.pid) / 2 ** 20;
    const latencyMs = median(await sequentialMs(light, params, 300));
    const heavySessions = await Promise.all(Array.from({ length: 16 }, () => running.open()));
    const cpuBefore = cpuMicros(running.pid);
    progress(`${target.name}: 4 in flight`);
    const lightSeconds = await drive([light], 4, CALLS, params);
    progress(`${target.name}: 16 sessions`);
    const heavySeconds = await drive(heavySessions, 16, CALLS, params);
    const cpuMicrosPerCall = (cpuMicros(running.pid) - cpuBefore) / (2 * CALLS);
    progress(`${target.name}: both loads again, warm`);
    const warmBefore = cpuMicros(running.pid);
    await drive([light], 4, CALLS, params);
    await drive(heavySessions, 16, CALLS, params);
    const warmCpuMicrosPerCall = (cpuMicros(running.pid) - warmBefore) / (2 * CALLS);
    for (const s of [light, ...heavySessions]) s.close();
    return { latencyMs, lightPerSecond: CALLS / lightSeconds, heavyPerSecond: CALLS / heavySeconds, cpuMicrosPerCall, warmCpuMicrosPerCall, rssMiB };
  } finally {
    await running.stop();
  }
}

async function directLatencyMs(dir: string, file: string): Promise<number> {
  const session = await stdioSession(process.execPath, [FS_SERVER, dir]);
  const params = { name: 'read_text_file', arguments: { path: file } };
  await sequentialMs(session, params, 200);
  const ms = median(await sequentialMs(session, params, 300));
  session.close();
  return ms;
}

const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);
const int = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-peers-'));
  const file = join(dir, 'file.txt');
  writeFileSync(file, 'x'.repeat(1023) + '\n');
  const unavailable: string[] = [];
  const targets: Target[] = [ROUTER];
  if (BASELINE) {
    const build = buildAt(BASELINE);
    targets.push(routerTarget(`router at ${build.sha.slice(0, 7)}`, build.routerChild));
  }
  for (const peer of PEERS.filter((p) => ONLY.length === 0 || ONLY.includes(p.name))) {
    const bin = install(peer);
    if (bin instanceof Error) unavailable.push(`${peer.name} ${peer.version}: ${bin.message}`);
    else targets.push(peerTarget(peer.name, peer.version, bin));
  }
  const loadAtStart = loadavg();
  const results = new Map<string, { direct: number; figures: Figures }[]>(targets.map((t) => [t.name, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    const direct = await directLatencyMs(dir, file);
    const order = targets.map((_, i) => targets[(i + round) % targets.length]);
    for (const target of order) {
      try {
        results.get(target.name)!.push({ direct, figures: await measure(target, dir, file) });
      } catch (err) {
        unavailable.push(`${target.name}, round ${round + 1}: ${String(err).slice(0, 300)}`);
      }
    }
  }
  const loadAtEnd = loadavg();
  const lines: string[] = [];
  const say = (line = '') => {
    lines.push(line);
    console.log(line);
  };
  const m = machine();
  say(`## bench:peers, ${new Date().toISOString()}`);
  say();
  say(`${m.cpu}, ${m.cores} cores, node ${m.node}; load average at start ${loadAtStart.map(f2).join(' ')}, at end ${loadAtEnd.map(f2).join(' ')}.`);
  say(`${ROUNDS} rounds, ${CALLS} calls per load; medians over rounds.`);
  say();
  say('| target | added latency, median ms | calls/s, 4 in flight | calls/s, 16 sessions | CPU µs per call | CPU µs per call, warm | RSS after boot, MiB |');
  say('|---|---:|---:|---:|---:|---:|---:|');
  const med = (name: string, pick: (r: { direct: number; figures: Figures }) => number) => median((results.get(name) ?? []).map(pick));
  const column = {
    added: (r: { direct: number; figures: Figures }) => r.figures.latencyMs - r.direct,
    light: (r: { direct: number; figures: Figures }) => r.figures.lightPerSecond,
    heavy: (r: { direct: number; figures: Figures }) => r.figures.heavyPerSecond,
    cpu: (r: { direct: number; figures: Figures }) => r.figures.cpuMicrosPerCall,
    warm: (r: { direct: number; figures: Figures }) => r.figures.warmCpuMicrosPerCall,
    rss: (r: { direct: number; figures: Figures }) => r.figures.rssMiB,
  };
  for (const t of targets) {
    if ((results.get(t.name) ?? []).length === 0) continue;
    say(
      `| ${t.name} | ${f2(med(t.name, column.added))} | ${int(med(t.name, column.light))} | ${int(med(t.name, column.heavy))} | ${int(med(t.name, column.cpu))} | ${int(med(t.name, column.warm))} | ${f1(med(t.name, column.rss))} |`,
    );
  }
  say();
  say('Router ÷ peer, per round (range over rounds): below 1 is better for latency, CPU and RSS; above 1 for calls/s.');
  say();
  say('| router ÷ peer | added latency | calls/s, 4 in flight | calls/s, 16 sessions | CPU per call | CPU per call, warm | RSS |');
  say('|---|---|---|---|---|---|---|');
  const router = results.get('router') ?? [];
  for (const t of targets.slice(1)) {
    const peer = results.get(t.name) ?? [];
    const rounds = Math.min(router.length, peer.length);
    if (rounds === 0) continue;
    const range = (pick: (r: { direct: number; figures: Figures }) => number) => {
      const ratios = Array.from({ length: rounds }, (_, i) => pick(router[i]) / pick(peer[i])).sort((a, b) => a - b);
      return ratios.length === 1 ? f2(ratios[0]) : `${f2(ratios[0])}–${f2(ratios[ratios.length - 1])}`;
    };
    say(
      `| ${t.name} | ${range(column.added)} | ${range(column.light)} | ${range(column.heavy)} | ${range(column.cpu)} | ${range(column.warm)} | ${range(column.rss)} |`,
    );
  }
  if (unavailable.length > 0) {
    say();
    say('Not measured:');
    for (const u of unavailable) say(`- ${u}`);
  }
  const out = join(ROOT, 'dist', 'bench');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'peers.md'), lines.join('\n') + '\n');
  writeFileSync(join(out, 'peers.json'), JSON.stringify({ machine: m, loadAtStart, loadAtEnd, results: Object.fromEntries(results), unavailable }, null, 2));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

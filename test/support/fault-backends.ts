import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import type { HttpBackendConfig, StdioBackendConfig } from '../../src/config/config.types';
import { freePort, httpBackend, stdioBackend } from './backend-servers';
import type { AnswerOf, SingleAnswer } from './router';

/** The compiled fault server (test/fixtures/fault-server.ts). */
export const FAULT_SERVER = join(__dirname, '..', 'fixtures', 'fault-server.js');

export interface FaultOptions {
  /** Synthetic tools beside the fault tools. */
  tools?: number;
  /** Send `tools/list_changed` this often, from start. */
  stormMs?: number;
  /** Append one line per request received to this file. */
  countFile?: string;
  pageSize?: number;
}

function faultArgs(name: string, o: FaultOptions): string[] {
  return [
    '--name',
    name,
    ...(o.tools !== undefined ? ['--tools', String(o.tools)] : []),
    ...(o.stormMs !== undefined ? ['--storm-ms', String(o.stormMs)] : []),
    ...(o.countFile !== undefined ? ['--count-file', o.countFile] : []),
    ...(o.pageSize !== undefined ? ['--page-size', String(o.pageSize)] : []),
  ];
}

/** The fault server as a supervised stdio backend of the router. */
export function faultStdioBackend(name: string, o: FaultOptions = {}, extra: Partial<StdioBackendConfig> = {}): StdioBackendConfig {
  return stdioBackend(name, FAULT_SERVER, faultArgs(name, o), extra);
}

/** A fault server over Streamable HTTP, started by a test (the router does not supervise it). */
export interface FaultHttpServer {
  port: number;
  url: string;
  child: ChildProcess;
  /** Starts it again on the same port after a crash or a stop. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startFaultHttp(name: string, o: FaultOptions = {}, port?: number): Promise<FaultHttpServer> {
  const chosen = port ?? (await freePort());
  const spawnIt = async (): Promise<ChildProcess> => {
    const child = spawn(process.execPath, [FAULT_SERVER, '--http', String(chosen), ...faultArgs(name, o)], {
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`fault server ${name} did not listen: ${stderr}`)), 60_000);
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('listening on port')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`fault server ${name} exited with ${code}: ${stderr}`));
      });
    });
    child.stderr.resume();
    return child;
  };
  const server: FaultHttpServer = {
    port: chosen,
    url: `http://127.0.0.1:${chosen}/mcp`,
    child: await spawnIt(),
    async restart() {
      await server.stop();
      server.child = await spawnIt();
    },
    async stop() {
      const { child } = server;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
  return server;
}

export function faultHttpBackend(name: string, server: FaultHttpServer, extra: Partial<HttpBackendConfig> = {}): HttpBackendConfig {
  return httpBackend(name, server.url, extra);
}

/** A fault server's own `stats`, asked over HTTP directly (not through the router). */
export interface FixtureStats {
  counts: Record<string, number>;
  openSockets: number;
  pendingRequests: number;
  pid: number;
  /** Every distinct header line the server received, "name: value". */
  headers: string[];
}

export async function fixtureStats(server: FaultHttpServer): Promise<FixtureStats> {
  const response = await fetch(server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', connection: 'close' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'stats', arguments: {} } }),
  });
  const message = (await response.json()) as { result: { structuredContent: FixtureStats } };
  return message.result.structuredContent;
}

/** Requests received, by `method` or `tools/call:<tool>`, as a fault server's count file holds them. */
export function readCounts(file: string): Record<string, number> {
  const counts: Record<string, number> = {};
  if (!existsSync(file)) return counts;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line !== '') counts[line] = (counts[line] ?? 0) + 1;
  }
  return counts;
}

/** The p-th percentile (0..100) of `values`, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Living (non-zombie) processes whose parent is `ppid`: our children, read from /proc. */
export function childrenOf(ppid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
        return fields[0] !== 'Z' && Number(fields[1]) === ppid;
      } catch {
        return false;
      }
    });
}

export interface RawReply {
  status: number;
  body: string;
}

/**
 * A plain JSON-RPC client of /mcp over pooled keep-alive sockets: raw bodies for the fuzzer, and
 * cheap calls for latency measurements (the SDK client costs the test process far more CPU per
 * call, which on a 2-core box would be measured as router latency).
 */
export class RawMcpClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256 });
  private nextId = 1;

  constructor(readonly url: string) {}

  post(body: string | Buffer, headers: Record<string, string> = {}): Promise<RawReply> {
    return new Promise((resolve, reject) => {
      const req = request(
        this.url,
        {
          method: 'POST',
          agent: this.agent,
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /** `tools/call` of a published tool; resolves with its structured content. */
  async call<N extends keyof AnswerOf>(name: N, args: Record<string, unknown>): Promise<AnswerOf[N]> {
    const id = this.nextId++;
    const reply = await this.post(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }));
    if (reply.status !== 200) throw new Error(`HTTP ${reply.status}: ${reply.body.slice(0, 200)}`);
    const message = JSON.parse(reply.body) as { id: unknown; result?: { structuredContent: AnswerOf[N] }; error?: unknown };
    if (message.id !== id) throw new Error(`answered id ${String(message.id)} for ${id}`);
    if (!message.result) throw new Error(`JSON-RPC error: ${JSON.stringify(message.error)}`);
    return message.result.structuredContent;
  }

  /** `invoke_read_tool` of one backend tool; resolves with the single call's answer. */
  read(name: string, server: string | undefined, args: Record<string, unknown> = {}): Promise<SingleAnswer> {
    return this.call('invoke_read_tool', { name, ...(server !== undefined ? { server } : {}), arguments: args });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Runs `task` `total` times with at most `concurrency` at once; resolves with each run's ms. */
export async function timed(total: number, concurrency: number, task: (i: number) => Promise<void>): Promise<number[]> {
  const durations: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const started = performance.now();
      await task(i);
      durations.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return durations;
}

import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './backend-servers';

/** The compiled 2026-07-28-only server (test/fixtures/modern-server.ts). */
export const MODERN_SERVER = join(__dirname, '..', 'fixtures', 'modern-server.js');

export interface ModernServerOptions {
  /** `ttlMs` of its `tools/list` results (default 60 s). */
  ttlMs?: number;
  /** Whether it announces tool-list changes on `subscriptions/listen` (default true). */
  listChanged?: boolean;
}

/** A 2026-07-28-only backend started by a test (the router does not supervise it). */
export interface ModernServer {
  port: number;
  url: string;
  child: ChildProcess;
  /** Adds a read-only tool at run time; the server announces the change to its listeners. */
  addTool(name: string): Promise<void>;
  /** Adds a resource `memo://NAME/added/RES` at run time; the server announces the change to its listeners. */
  addResource(name: string): Promise<void>;
  /** JSON-RPC methods received, and the MCP headers of each POST ("METHOD mcp-method=… mcp-name=… …"). */
  stats(): Promise<{ methods: Record<string, number>; headers: string[] }>;
  /** Starts it again on the same port (after `stop`). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startModernServer(name: string, o: ModernServerOptions = {}): Promise<ModernServer> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const args = [MODERN_SERVER, '--port', String(port), '--name', name, '--ttl-ms', String(o.ttlMs ?? 60_000), '--list-changed', String(o.listChanged ?? true)];
  const spawnIt = async (): Promise<ChildProcess> => {
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`modern server ${name} did not listen: ${stderr}`)), 60_000);
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('listening on port')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`modern server ${name} exited with ${code}: ${stderr}`));
      });
    });
    child.stderr.resume();
    return child;
  };
  const server: ModernServer = {
    port,
    url: `${base}/mcp`,
    child: await spawnIt(),
    async addTool(tool) {
      const res = await fetch(`${base}/control/add-tool`, { method: 'POST', body: JSON.stringify({ name: tool }) });
      if (!res.ok) throw new Error(`add-tool answered ${res.status}`);
    },
    async addResource(resource) {
      const res = await fetch(`${base}/control/add-resource`, { method: 'POST', body: JSON.stringify({ name: resource }) });
      if (!res.ok) throw new Error(`add-resource answered ${res.status}`);
    },
    async stats() {
      return (await (await fetch(`${base}/control/stats`)).json()) as { methods: Record<string, number>; headers: string[] };
    },
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

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { freePort } from './backend-servers';

/** test/fixtures/counting-server.ts in its own process: when each call reached the backend. */
export interface CountingBackend {
  url: string;
  /** Arrival times of every `tools/call` so far (ms, the server's monotonic clock). */
  arrivals(): Promise<number[]>;
  stop(): Promise<void>;
}

export async function startCountingBackend(): Promise<CountingBackend> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, '..', 'fixtures', 'counting-server.js'), String(port)], {
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`counting server did not listen: ${stderr}`)), 10_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('listening on port')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`counting server exited with ${code}: ${stderr}`));
    });
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/mcp`,
    arrivals: async () => (await (await fetch(`${base}/arrivals`)).json()) as number[],
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The most arrivals within any window of `windowMs` (each window starting at an arrival). */
export function maxInWindow(arrivals: readonly number[], windowMs: number): number {
  const sorted = [...arrivals].sort((a, b) => a - b);
  let most = 0;
  let end = 0;
  for (let start = 0; start < sorted.length; start++) {
    while (end < sorted.length && sorted[end] < sorted[start] + windowMs) end++;
    most = Math.max(most, end - start);
  }
  return most;
}

import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from './backend-servers';
import { requireCommand } from './prerequisites';
import { tempDir } from './router';

/**
 * A real `redis-server` for the shared rate-limit tests, started on a free loopback
 * port with nothing persisted (`--save "" --appendonly no`) and stopped by the test. It must be
 * on PATH: `.ci/run` installs it; locally, `apt-get install redis-server` (Debian/Ubuntu).
 */
export interface RedisServer {
  port: number;
  /** The running server's pid (for CPU accounting). */
  readonly pid: number;
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  /** SIGKILL, as a crash: no goodbye to clients. */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: a Redis that hangs with its connections open. */
  pause(): void;
  resume(): void;
  /** Starts it again on the same port (empty: nothing was persisted). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** A clear failure naming the Debian package when redis-server is missing, instead of a skip. */
export function requireRedisServer(env: NodeJS.ProcessEnv = process.env): void {
  requireCommand('redis-server', env.PATH ?? '');
}

export async function startRedisServer(): Promise<RedisServer> {
  requireRedisServer();
  const port = await freePort();
  const dir = tempDir('centralmcp-redis-');
  const spawnIt = async (): Promise<ChildProcess> => {
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start on port ${port}: ${output}`)), 60_000);
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}: ${output}`));
      });
    });
    child.stdout.resume();
    child.stderr.resume();
    return child;
  };
  let child = await spawnIt();
  const stopChild = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGCONT');
    child.kill(signal);
    await exited;
  };
  return {
    port,
    get pid() {
      return child.pid!;
    },
    url: `redis://127.0.0.1:${port}`,
    kill: () => stopChild('SIGKILL'),
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    async restart() {
      await stopChild('SIGKILL');
      child = await spawnIt();
    },
    stop: () => stopChild('SIGTERM'),
  };
}

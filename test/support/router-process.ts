import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { waitFor } from './backend-processes';
import { ROOT } from './router';

/** A router started as `npm start` starts it: `node dist/src/main.js`, configured by environment. */
export interface RouterProcess {
  /** Its `/mcp` URL. */
  url: string;
  /** Its base URL, for /health and /metrics. */
  base: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

interface LogLine {
  message: unknown;
}

export async function startRouterProcess(configFile: string, env: Record<string, string> = {}): Promise<RouterProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'dist/src/main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      CENTRALMCP_ROUTER_CONFIG: configFile,
      CENTRALMCP_ROUTER_PORT: '0',
      CENTRALMCP_ROUTER_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let url: string | undefined;
  let output = '';
  let pending = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stdout!.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      output += `${line}\n`;
      if (!line.startsWith('{')) continue;
      const message = (JSON.parse(line) as LogLine).message as { msg?: string; url?: string } | undefined;
      if (message?.msg === 'router listening') url = message.url;
    }
  });
  try {
    await waitFor(() => url !== undefined || child.exitCode !== null, 30_000, 'router listening');
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  if (url === undefined) throw new Error(`router did not start (exit ${child.exitCode}): ${output}`);
  return {
    url,
    base: url.replace(/\/mcp$/, ''),
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

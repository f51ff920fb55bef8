import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from './backend-processes';
import { killTree } from './reaper';
import { ROOT, ROUTER_MAIN, tempDir } from './router';

/** One JSON log line of the router. */
export interface LogLine {
  level: string;
  message: unknown;
  context?: string;
  requestId?: string;
  [field: string]: unknown;
}

/** A log line's message (always a string; the structured fields sit beside it). */
export const msgOf = (line: LogLine): unknown => line.message;

/** The built router (`node dist-test/src/main.js`, the tests' own build) as its own process, as an operator runs it. */
export interface SpawnedRouter {
  child: ChildProcess;
  /** The config file it was started with (a test may rewrite it and reload). */
  configFile: string;
  logs: LogLine[];
  /** stderr and any stdout line that is not JSON. */
  other(): string;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  /** Resolves with the /mcp URL once "router listening" is logged; rejects if the process exits first. */
  listening(ms?: number): Promise<string>;
  /** SIGKILL to it and everything it started, if still running (cleanup after a failed assertion). */
  kill(): void;
}

/**
 * Starts the router on port 0 with `configYaml` as its config file and `env` added; by default as
 * `node dist-test/src/main.js`, or as `command` (say, `npm start`) run in `cwd` (the repository by
 * default).
 */
export function spawnRouter(
  configYaml: string,
  env: Record<string, string> = {},
  command?: { file: string; args: string[]; cwd?: string; /** Its own process group, as a terminal's foreground job. */ detached?: boolean },
): SpawnedRouter {
  const configFile = join(tempDir(), 'router.yaml');
  writeFileSync(configFile, configYaml);
  const child = spawn(command?.file ?? process.execPath, command?.args ?? [ROUTER_MAIN], {
    cwd: command?.cwd ?? ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      CENTRALMCP_ROUTER_CONFIG: configFile,
      CENTRALMCP_ROUTER_PORT: '0',
      CENTRALMCP_ROUTER_LOG_LEVEL: 'debug',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: command?.detached ?? false,
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const logs: LogLine[] = [];
  let other = '';
  let pending = '';
  child.stderr.on('data', (chunk: Buffer) => (other += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        other += line + '\n';
      }
    }
  });
  return {
    child,
    configFile,
    logs,
    other: () => other,
    exited,
    // A ceiling for a loaded machine, not an expectation: an idle boot takes a few seconds.
    async listening(ms = 90_000) {
      await waitFor(() => logs.some((l) => msgOf(l) === 'router listening') || child.exitCode !== null, ms, 'router listening');
      const line = logs.find((l) => msgOf(l) === 'router listening');
      if (!line) throw new Error(`router exited before listening: ${other}`);
      return line.url as string;
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) killTree(child.pid!);
    },
  };
}

/** A stdio backend entry of a router YAML config. */
export function stdioBackendYaml(name: string, script: string, args: string[], extra: Record<string, string | number | boolean> = {}): string[] {
  return [
    `  ${name}:`,
    '    transport: stdio',
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [${[script, ...args].map((a) => JSON.stringify(a)).join(', ')}]`,
    ...Object.entries(extra).map(([key, value]) => `    ${key}: ${JSON.stringify(value)}`),
  ];
}

/** A router started as `npm start` starts it (`node <build>/src/main.js`), configured by environment. */
export interface RouterProcess {
  /** Its `/mcp` URL. */
  url: string;
  /** Its base URL, for /health and /metrics. */
  base: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startRouterProcess(configFile: string, env: Record<string, string> = {}): Promise<RouterProcess> {
  const child = spawn(process.execPath, [ROUTER_MAIN], {
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
  let backendsStarted = false;
  let output = '';
  let pending = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      output += `${line}\n`;
      if (!line.startsWith('{')) continue;
      const parsed = JSON.parse(line) as LogLine;
      if (parsed.message === 'router listening') url = parsed.url as string;
      if (parsed.message === 'backends started') backendsStarted = true;
    }
  });
  try {
    // Backends connect once the router listens: wait for their first attempts, as a test starts
    // from a loaded catalog.
    // A ceiling for a loaded machine (boot and the first connections take seconds when idle).
    await waitFor(() => (url !== undefined && backendsStarted) || child.exitCode !== null, 90_000, 'router listening');
  } catch (err) {
    killTree(child.pid!);
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

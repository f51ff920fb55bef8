import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { type DynamicModule, Global, Module } from '@nestjs/common';
import { ConfigService } from '../../src/config/config.service';
import { BACKENDS_CONFIG } from '../../src/config/config.tokens';
import type { BackendConfig, HttpBackendConfig, RouterConfig, StdioBackendConfig } from '../../src/config/config.types';

/** Entry points of the real MCP servers installed from npm, and of our stdio edge fixture. */
export const SERVER_ENTRIES = {
  filesystem: require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'),
  memory: require.resolve('@modelcontextprotocol/server-memory/dist/index.js'),
  everything: require.resolve('@modelcontextprotocol/server-everything/dist/index.js'),
  fixture: join(__dirname, 'backend-fixture-server.js'),
};

/** BACKENDS_CONFIG (and the config in force, holding only them) for a testing module, global as the real ConfigModule is. */
@Global()
@Module({})
class BackendsConfigTestModule {}

export function backendsConfigModule(backends: BackendConfig[]): DynamicModule {
  return {
    module: BackendsConfigTestModule,
    providers: [
      { provide: BACKENDS_CONFIG, useValue: backends },
      { provide: ConfigService, useValue: new ConfigService(backendsOnly(backends)) },
    ],
    exports: [BACKENDS_CONFIG, ConfigService],
  };
}

function backendsOnly(backends: BackendConfig[]): RouterConfig {
  return {
    http: { host: '127.0.0.1', port: 0, bodyLimitBytes: 4 * 1024 * 1024, allowedHosts: [], allowedOrigins: [] },
    budgets: { responseMaxBytes: 200_000, responseMaxItems: 200, batchResponseMaxBytes: 300_000 },
    cursor: { ttlSeconds: 900, secret: Buffer.alloc(32) },
    logLevel: 'warn',
    backends,
    policy: { readOnly: { allow: [], deny: [] } },
  };
}

/** What a stdio child inherits from the router, as the config loader builds it. */
export function inheritedEnv(): Record<string, string> {
  return Object.fromEntries((['PATH', 'HOME'] as const).flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]]])));
}

export function stdioBackend(name: string, entry: string, args: string[], extra: Partial<StdioBackendConfig> = {}): StdioBackendConfig {
  return {
    name,
    transport: 'stdio',
    command: process.execPath,
    args: [entry, ...args],
    env: {},
    inheritedEnv: inheritedEnv(),
    required: true,
    timeoutMs: 10_000,
    ...extra,
  };
}

export function httpBackend(name: string, url: string, extra: Partial<HttpBackendConfig> = {}): HttpBackendConfig {
  return { name, transport: 'http', url, headers: {}, required: true, timeoutMs: 10_000, ...extra };
}

/** A port nobody listens on right now (the OS picks it; it is released before returning). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** server-everything over Streamable HTTP (or legacy SSE) on `port`, resolved once it listens. */
export async function startEverythingHttp(port: number, mode: 'streamableHttp' | 'sse' = 'streamableHttp'): Promise<ChildProcess> {
  const child = spawn(process.execPath, [SERVER_ENTRIES.everything, mode], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything did not listen: ${stderr}`)), 60_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/listening on port|running on port/i.test(stderr)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited with ${code}: ${stderr}`));
    });
  });
  child.stderr.resume(); // keep draining
  return child;
}

/** Stops a server started by a test and waits for it to exit. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

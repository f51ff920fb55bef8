// First: the young generation is held small while the router boots (young-generation.ts).
import './young-generation';
import 'reflect-metadata';
// Before @nestjs/common: Nest's logger loads with its date formatter deferred (nest-logger-preload.ts).
import './nest-logger-preload';
import { createServer } from 'node:net';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from './app.factory';
import { BackendsService } from './backends/backends.service';
import { errnoCode } from './common/thrown';
import { ConfigError } from './config/config.errors';
import { loadConfigFromEnvironment } from './config/config.module';
import { moveOpsPathsOffMainPort } from './ops-port';
import { handleSignals, shutDown } from './process-signals';
import { releaseYoungGeneration } from './young-generation';

async function main(): Promise<void> {
  let config;
  let app: NestFastifyApplication;
  try {
    config = loadConfigFromEnvironment();
    // Some config is only proven when its module opens it (the audit file): still a config error.
    app = await createApp(config);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // Invalid config stops the process before anything starts (architecture §3).
    process.stderr.write(
      process.stderr.isTTY
        ? humanReport(err.problems)
        : JSON.stringify({ level: 'fatal', time: new Date().toISOString(), context: 'Config', message: err.message, problems: err.problems }) + '\n',
    );
    process.exit(78);
  }
  const logger = new Logger('Main');
  handleSignals(app, logger, () => void shutDown(app, logger));
  const opsPort = config.http.metricsPort === undefined ? undefined : moveOpsPathsOffMainPort(app);
  // The port first, the backends after: a router that cannot listen spawns nothing, and
  // liveness answers while backends still connect (readiness says when the required ones are up).
  // Probed first on a throwaway socket: Nest's own listen logs a raw error line before we could.
  await listenOrExit(() => probeListen(config.http.port, config.http.host), config.http.host, config.http.port);
  await listenOrExit(() => app.listen(config.http.port, config.http.host), config.http.host, config.http.port);
  // The ops listener dies with the process; it holds no work a drain would have to wait for.
  if (opsPort && config.http.metricsPort !== undefined) {
    const metricsPort = config.http.metricsPort;
    (await listenOrExit(() => opsPort.listen(metricsPort, config.http.host), config.http.host, metricsPort)).unref();
  }
  logger.log({
    msg: 'router listening',
    url: `${await app.getUrl()}/mcp`,
    ...(config.http.metricsPort !== undefined ? { metricsPort: config.http.metricsPort } : {}),
    startupMs: Math.round(process.uptime() * 1000),
  });
  void app.get(BackendsService).start().finally(releaseYoungGeneration);
}

/** A config report for a person at a terminal: one problem per paragraph, excerpts as they are. */
function humanReport(problems: readonly string[]): string {
  const items = problems.map((p) => `  - ${p.replace(/\n/g, '\n    ')}`);
  return `The router did not start: the configuration has ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}:\n${items.join('\n')}\n`;
}

/** Binds `host:port` and lets it go again; rejects with the OS error `listen` would meet. */
function probeListen(port: number, host: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** OS errors of `listen` that are the operator's to fix, like a config error. */
const LISTEN_ERRORS: Record<string, string> = {
  EADDRINUSE: 'the address is already in use',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'the address is not one of this host',
};

/**
 * Listens, or ends the process as a config error does: one JSON line naming the address and the
 * OS error, exit 78 (EX_CONFIG), so a crash-looping pod says why in its last log line.
 */
async function listenOrExit<T>(listen: () => Promise<T>, host: string, port: number): Promise<T> {
  try {
    return await listen();
  } catch (err) {
    const code = errnoCode(err);
    if (code === undefined || !(code in LISTEN_ERRORS)) throw err;
    const line = {
      level: 'fatal',
      time: new Date().toISOString(),
      context: 'Main',
      message: `cannot listen on ${host}:${port}: ${code} (${LISTEN_ERRORS[code]})`,
      host,
      port,
      code,
    };
    process.stderr.write(JSON.stringify(line) + '\n');
    process.exit(78);
  }
}

void main();

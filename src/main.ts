import 'reflect-metadata';
import { createServer } from 'node:net';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from './app.factory';
import { BackendsService } from './backends/backends.service';
import { errnoCode } from './common/thrown';
import { ConfigError } from './config/config.errors';
import { loadConfigFromEnvironment } from './config/config.module';
import { judgeStopSignal } from './lifecycle/domain/stop-signals';
import { LifecycleService } from './lifecycle/lifecycle.service';
import { moveOpsPathsOffMainPort } from './ops-port';
import { ReloadService } from './reload/reload.service';

/**
 * Bound of `app.close()` after the drain: closing backends waits for every stdio process group to
 * exit, which the backends' own escalation to SIGKILL (2 s) keeps short; this only guards against
 * a hang. With the answer grace after a missed drain deadline (2 s) it stays under the chart's
 * `shutdown.extraGraceSeconds` (10), so the kubelet never has to SIGKILL the router.
 */
const CLOSE_TIMEOUT_MS = 6_000;

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
  handleSignals(app);
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
  new Logger('Main').log({
    msg: 'router listening',
    url: `${await app.getUrl()}/mcp`,
    ...(config.http.metricsPort !== undefined ? { metricsPort: config.http.metricsPort } : {}),
    startupMs: Math.round(process.uptime() * 1000),
  });
  void app.get(BackendsService).start();
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

/**
 * SIGHUP reloads the config file (architecture §3.1); a router shutting down
 * ignores it. Listened to as soon as the app exists, before it listens: Node's default for SIGHUP
 * would end the process.
 *
 * SIGTERM (Kubernetes) or SIGINT (a terminal): readiness fails and new /mcp requests are refused
 * at once, in-flight requests finish up to the drain deadline, then `app.close()` runs every
 * shutdown hook (the backends' kills every stdio process group) and the process exits 0. Signals
 * that arrive together (Ctrl-C reaches the router from the terminal and again through npm) are
 * one request; a signal that comes later, while shutting down, exits at once; the `exit` hook
 * still kills the backends' groups.
 */
function handleSignals(app: NestFastifyApplication): void {
  const logger = new Logger('Main');
  let firstAtMs: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    const nowMs = performance.now();
    switch (judgeStopSignal(firstAtMs, nowMs)) {
      case 'joined':
        logger.log({ msg: 'signal joins the shutdown under way', signal });
        return;
      case 'exit_now':
        logger.warn({ msg: 'second signal: exiting now', signal });
        process.exit(1);
        return;
      case 'drain':
        firstAtMs = nowMs;
        logger.log({ msg: 'shutting down', signal });
        void shutDown(app, logger);
        return;
    }
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('SIGHUP', () => {
    if (firstAtMs === undefined) app.get(ReloadService).reload('signal');
  });
}

async function shutDown(app: NestFastifyApplication, logger: Logger): Promise<void> {
  try {
    const drained = await app.get(LifecycleService).drain();
    // Every request has had its answer (or its grace); what is left is idle keep-alive connections,
    // or a request stuck below the call path: neither may hold the close up.
    if (!drained.idle) app.getHttpServer().closeAllConnections();
    const closeGuard = setTimeout(() => {
      logger.error({ msg: 'close did not finish in time: exiting', closeTimeoutMs: CLOSE_TIMEOUT_MS });
      process.exit(1);
    }, CLOSE_TIMEOUT_MS);
    await app.close();
    clearTimeout(closeGuard);
    logger.log({ msg: 'stopped' });
    process.exit(0);
  } catch (err) {
    logger.error({ msg: 'shutdown failed', error: err instanceof Error ? err.message : String(err) });
    process.exit(1);
  }
}

void main();

import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from './app.factory';
import { BackendsService } from './backends/backends.service';
import { ConfigError } from './config/config.errors';
import { loadConfigFromEnvironment } from './config/config.module';
import { judgeStopSignal } from './lifecycle/domain/stop-signals';
import { LifecycleService } from './lifecycle/lifecycle.service';
import { McpService } from './mcp/mcp.service';
import { OfferingMethods } from './mcp/offering-methods';
import { ToolListStreams } from './mcp/tool-list-streams';
import { moveOpsPathsOffMainPort } from './ops-port';
import { ReloadService } from './reload/reload.service';
import { stdioPrincipal } from './stdio/domain/stdio-message';
import { StdioFrontEnd } from './stdio/stdio-front-end';
import { claimStdout } from './stdio/stdout-claim';

/** Bound of `app.close()` once drained, as for the HTTP router (main.ts). */
const CLOSE_TIMEOUT_MS = 6_000;

export const STDIO_USAGE =
  'usage: centralmcp-router stdio [--config FILE] [--http]\n' +
  'serves MCP over stdin/stdout (logs on stderr); --config names the config file (else CENTRALMCP_ROUTER_CONFIG);\n' +
  '--http also serves Streamable HTTP, health and metrics on CENTRALMCP_ROUTER_HOST:CENTRALMCP_ROUTER_PORT';

interface StdioArgs {
  configPath?: string;
  http: boolean;
}

/** The arguments after `stdio`, or the usage error to print. */
export function parseStdioArgs(argv: readonly string[]): StdioArgs | string {
  const args: StdioArgs = { http: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--http') args.http = true;
    else if (argv[i] === '--config' && argv[i + 1] !== undefined && args.configPath === undefined) args.configPath = argv[++i];
    else return STDIO_USAGE;
  }
  return args;
}

/**
 * `centralmcp-router stdio`: the router for one local user, launched by a desktop client (Claude
 * Desktop, Cursor, VS Code) as its MCP server process. The same application as the HTTP router,
 * built the same way, but no port is opened unless `--http` asks for one: the MCP surface is served
 * on stdin/stdout. When stdin closes (the client quit), or on SIGTERM/SIGINT, the router drains
 * (every message read gets its answer), closes its backends and exits 0. Exit 2 for bad arguments,
 * 78 for a bad config.
 */
export async function runStdio(argv: readonly string[]): Promise<void> {
  const args = parseStdioArgs(argv);
  if (typeof args === 'string') {
    process.stderr.write(`${args}\n`);
    process.exit(2);
  }
  const writeLine = claimStdout();
  let config;
  let app: NestFastifyApplication;
  try {
    config = loadConfigFromEnvironment(args.configPath);
    app = await createApp(config);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(
      JSON.stringify({ level: 'fatal', time: new Date().toISOString(), context: 'Config', message: err.message, problems: err.problems }) + '\n',
    );
    process.exit(78);
  }
  const logger = new Logger('Stdio');
  if (args.http) {
    const opsPort = config.http.metricsPort === undefined ? undefined : moveOpsPathsOffMainPort(app);
    await app.listen(config.http.port, config.http.host);
    if (opsPort && config.http.metricsPort !== undefined) (await opsPort.listen(config.http.metricsPort, config.http.host)).unref();
    logger.log({ msg: 'router listening', url: `${await app.getUrl()}/mcp` });
  } else await app.init();
  const principal = stdioPrincipal(config.stdio);
  // Backends connect from now on; a message that needs them waits for their first attempts.
  const backendsStarted = app.get(BackendsService).start();
  const frontEnd = new StdioFrontEnd(app.get(McpService), app.get(LifecycleService), principal, writeLine, backendsStarted);
  // stdout is a stream for as long as the process lives: with tools published per caller, a change
  // of this caller's list is announced on it (initialize says `listChanged: true` then).
  const toolLists = app.get(ToolListStreams);
  if (toolLists.enabled)
    toolLists.open(
      principal,
      (message) => void writeLine(JSON.stringify(message)),
      () => undefined,
    );
  // And a backend's resources or prompts listed again after its list_changed (initialize declares
  // `listChanged: true` for them over stdio).
  app.get(OfferingMethods).onListChanged((method) => void writeLine(JSON.stringify({ jsonrpc: '2.0', method })));
  let firstStopAtMs: number | undefined;
  // As the HTTP router's signals (main.ts): stop signals together are one, a later one exits now;
  // SIGHUP reloads the config file.
  const onSignal = (signal: NodeJS.Signals) => {
    const nowMs = performance.now();
    switch (judgeStopSignal(firstStopAtMs, nowMs)) {
      case 'joined':
        return;
      case 'exit_now':
        logger.warn({ msg: 'second signal: exiting now', signal });
        process.exit(1);
        return;
      case 'drain':
        firstStopAtMs = nowMs;
        logger.log({ msg: 'shutting down', signal });
        frontEnd.stop();
        return;
    }
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('SIGHUP', () => {
    if (firstStopAtMs === undefined) app.get(ReloadService).reload('signal');
  });
  logger.log({ msg: 'serving MCP on stdio', principal: principal.id, startupMs: Math.round(process.uptime() * 1000) });
  await frontEnd.serve(process.stdin);
  if (firstStopAtMs === undefined) logger.log({ msg: 'stdin closed: shutting down' });
  firstStopAtMs ??= performance.now();
  await shutDown(app, logger);
}

async function shutDown(app: NestFastifyApplication, logger: Logger): Promise<void> {
  try {
    const drained = await app.get(LifecycleService).drain();
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

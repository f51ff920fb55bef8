// Before @nestjs/common: Nest's logger loads with its date formatter deferred (nest-logger-preload.ts).
import './nest-logger-preload';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp } from './app.factory';
import { BackendsService } from './backends/backends.service';
import { ConfigError } from './config/config.errors';
import { loadConfigFromEnvironment } from './config/config.module';
import { LifecycleService } from './lifecycle/lifecycle.service';
import { McpService } from './mcp/mcp.service';
import { PublishedSurface } from './mcp/published-surface';
import { ListChangeStreams } from './mcp/list-change-streams';
import { moveOpsPathsOffMainPort } from './ops-port';
import { handleSignals, shutDown } from './process-signals';
import { stdioPrincipal } from './stdio/domain/stdio-message';
import { StdioFrontEnd } from './stdio/stdio-front-end';
import { claimStdout } from './stdio/stdout-claim';
import { releaseYoungGeneration } from './young-generation';

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
  void backendsStarted.then(releaseYoungGeneration, releaseYoungGeneration);
  const frontEnd = new StdioFrontEnd(app.get(McpService), app.get(LifecycleService), principal, writeLine, backendsStarted);
  // stdout is a stream for as long as the process lives: a change of this caller's lists is
  // announced on it, as initialize's `listChanged: true` promises. Its tools while they are
  // published per caller; its resources and prompts always (backends that declare them may connect
  // later), each told only when what this principal may see changed.
  app.get(ListChangeStreams).open(
    principal,
    [...(app.get(PublishedSurface).perCaller ? (['tools'] as const) : []), 'resources', 'prompts'],
    (message) => void writeLine(JSON.stringify(message)),
    () => undefined,
  );
  // As the HTTP router's signals: a stop signal ends the reading of stdin, then the drain below.
  const stop = handleSignals(app, logger, () => frontEnd.stop());
  logger.log({ msg: 'serving MCP on stdio', principal: principal.id, startupMs: Math.round(process.uptime() * 1000) });
  await frontEnd.serve(process.stdin);
  if (!stop.stopping) logger.log({ msg: 'stdin closed: shutting down' });
  stop.markStopping();
  await shutDown(app, logger);
}

// Before @nestjs/common: Nest's logger loads with its date formatter deferred (nest-logger-preload.ts).
import './nest-logger-preload';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { ConfigError } from './config/config.errors';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './config/domain/env-settings';
import { createServer, type IncomingMessage, type ServerOptions, type ServerResponse } from 'node:http';
import type { FastifyServerOptions } from 'fastify';
import { ClientGoneFilter } from './mcp/client-gone.filter';
import { BODIES_IN_FLIGHT, BodyBudget } from './mcp/domain/body-budget';
import { McpPost } from './mcp/mcp-post';
import { McpService } from './mcp/mcp.service';
import type { RouterConfig } from './config/config.types';
import { JsonLogger } from './lifecycle/json-logger';
import { registerDrainHook } from './lifecycle/drain.hook';
import { LifecycleService } from './lifecycle/lifecycle.service';
import { registerRequestContext } from './lifecycle/request-context.hook';
import { registerHttpMetrics } from './metrics/http-metrics.hook';
import { MetricsService } from './metrics/metrics.service';
import { openTracing } from './tracing/open-tracing';

/** The headers of a request must arrive within this (or the request timeout, if shorter). */
const HEADERS_TIMEOUT_MS = 10_000;
/** How often Node looks for requests past their timeouts (its default, 30 s, would stretch a 1 s bound to 31 s). */
const CONNECTIONS_CHECK_MS = 500;

/**
 * Builds the router application: Fastify (about 3x Express's requests/s here), JSON logs with a
 * correlation id per request, HTTP metrics, the body limit, and /mcp bodies kept as text so a
 * malformed body becomes a JSON-RPC parse error rather than a framework 400 page.
 *
 * No `enableShutdownHooks()`: main.ts owns SIGTERM/SIGINT (drain first, then `app.close()`, which
 * still runs every shutdown hook). Nest's own signal listeners would close the app at once and
 * race the drain.
 */
export async function createApp(config: RouterConfig): Promise<NestFastifyApplication> {
  const requestTimeout = config.http.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  // POST /mcp is answered below Fastify (mcp/mcp-post.ts), every other request by Fastify. The
  // server is Node's, set up as Fastify sets up its own (its timeouts and `http` options).
  // Set once the application is built, before it listens.
  const front: { mcpPost?: McpPost } = {};
  const adapter = new FastifyAdapter({
    serverFactory: (fastifyHandler: (req: IncomingMessage, res: ServerResponse) => void, options: FastifyServerOptions & { http?: ServerOptions }) => {
      const server = createServer(options.http ?? {}, (req: IncomingMessage, res: ServerResponse) => {
        if (front.mcpPost !== undefined && McpPost.takes(req)) front.mcpPost.handle(req, res);
        else fastifyHandler(req, res);
      });
      server.keepAliveTimeout = options.keepAliveTimeout ?? server.keepAliveTimeout;
      server.requestTimeout = options.requestTimeout ?? server.requestTimeout;
      server.setTimeout(options.connectionTimeout ?? 0);
      return server;
    },
    bodyLimit: config.http.bodyLimitBytes,
    // Node's defaults as Fastify sets them never time out a slow body (requestTimeout 0): bound the
    // time to receive headers and body, and check it often enough that the bound is what it says.
    requestTimeout,
    http: { headersTimeout: Math.min(requestTimeout, HEADERS_TIMEOUT_MS), connectionsCheckingInterval: CONNECTIONS_CHECK_MS },
  });
  adapter.getInstance().removeContentTypeParser(['application/json']);
  adapter.getInstance().addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  // Before the logger: a line written inside a span carries its trace and span ids.
  const tracing = await openTracing(config.tracing);
  const logger = new JsonLogger(config.logLevel, process.stdout, tracing.enabled ? () => tracing.currentIds() : undefined);
  let app: NestFastifyApplication;
  try {
    // Logs held back while the modules are built, and errors thrown rather than handled by Nest
    // (which logs a stack trace and exits 1): a module that proves its config only when it opens
    // it (the audit file, the pins file) throws ConfigError, which main reports as every config
    // error is reported (one `fatal` line, exit 78). Any other error keeps Nest's report.
    app = await NestFactory.create<NestFastifyApplication>(AppModule.register(config, tracing), adapter, {
      logger,
      bodyParser: false,
      bufferLogs: true,
      autoFlushLogs: false,
      abortOnError: false,
    });
  } catch (err) {
    if (err instanceof ConfigError) {
      // Nest's report of it (a stack trace) and the lines before it are dropped, not just held.
      Logger.overrideLogger(false);
      Logger.flush();
      Logger.overrideLogger(logger);
    } else Logger.flush();
    throw err;
  }
  app.flushLogs();
  if (config.tracing !== undefined) {
    const { endpoint, protocol, serviceName } = config.tracing;
    new Logger('Tracing').log({ msg: 'exporting traces', endpoint: withoutCredentials(endpoint), protocol, serviceName });
  }
  // Fastify hooks rather than Nest interceptors: they also see 404s, which never reach a
  // controller. Added before listen(), so they apply to every route Fastify answers.
  const globalFilter = new ClientGoneFilter(app.getHttpAdapter());
  app.useGlobalFilters(globalFilter);
  registerRequestContext(adapter.getInstance());
  registerHttpMetrics(adapter.getInstance(), app.get(MetricsService));
  registerDrainHook(adapter.getInstance(), app.get(LifecycleService));
  front.mcpPost = new McpPost({
    mcp: app.get(McpService),
    lifecycle: app.get(LifecycleService),
    metrics: app.get(MetricsService),
    bodyLimitBytes: config.http.bodyLimitBytes,
    budget: new BodyBudget(BODIES_IN_FLIGHT * config.http.bodyLimitBytes),
  });
  return app;
}

/** A URL as it may be logged: user and password, if any, left out. */
function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.toString();
}

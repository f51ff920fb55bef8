import { ConsoleLogger, type LogLevel as NestLogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import type { LogLevel, RouterConfig } from './config/config.types';

const LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'verbose'];

/** Nest's names for the levels at and above `level` (Nest calls `info` "log"). */
export function nestLevels(level: LogLevel): NestLogLevel[] {
  return LEVELS.slice(0, LEVELS.indexOf(level) + 1).map((l) => (l === 'info' ? 'log' : l));
}

/**
 * Builds the router application: Fastify (about 3x Express's requests/s here), JSON logs, the body
 * limit, and /mcp bodies kept as text so a malformed body becomes a JSON-RPC parse error rather
 * than a framework 400 page.
 */
export async function createApp(config: RouterConfig): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({ bodyLimit: config.http.bodyLimitBytes });
  adapter.getInstance().removeContentTypeParser(['application/json']);
  adapter.getInstance().addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  const logger = new ConsoleLogger({ json: true, logLevels: nestLevels(config.logLevel), colors: false });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(config), adapter, { logger, bodyParser: false });
  app.enableShutdownHooks();
  return app;
}

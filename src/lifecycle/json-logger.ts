import { hostname } from 'node:os';
import type { LoggerService } from '@nestjs/common';
import { pino, type DestinationStream, type Logger as Pino } from 'pino';
import { currentRequestId } from '../common/request-context';
import type { LogLevel } from '../config/config.types';

/**
 * Nest's start-up chatter (module init, one line per route, "started"): 28 lines at `info` that say
 * nothing an operator acts on, so they go to `debug`.
 */
const BOOT_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/** Pino's numbers for the router's levels; `verbose` sits below `debug`, where pino has `trace`. */
const VERBOSE_LEVEL = 15;

/**
 * The router's log lines, written by pino (Fastify's own logger, the usual JSON logger in Node):
 * one JSON object per line with `level` by name (`info`, never Nest's `log`), `time` in ISO 8601
 * (as audit lines), `pid`, `hostname`, `context`, the request's `requestId` when written while
 * serving one, `message` always a string, and the structured fields of the call beside it. A
 * `{ msg, ...fields }` object logged through Nest's Logger becomes `message: msg` plus the fields,
 * so log stores map every field with one type.
 */
export class JsonLogger implements LoggerService {
  private readonly pino: Pino<'verbose'>;

  /**
   * To stdout as a stream (not pino's own fd writer), so a line is written through `process.stdout`.
   * `traceIds`, with tracing on, gives the ids of the span being run: a line written inside one
   * carries `traceId` and `spanId`, so a log store links it to the trace (architecture §8.1).
   */
  constructor(level: LogLevel, destination: DestinationStream = process.stdout, traceIds?: () => { traceId: string; spanId: string } | undefined) {
    this.pino = pino<'verbose'>(
      {
        level,
        customLevels: { verbose: VERBOSE_LEVEL },
        messageKey: 'message',
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
        base: { pid: process.pid, hostname: hostname() },
        mixin:
          traceIds === undefined
            ? () => {
                const requestId = currentRequestId();
                return requestId === undefined ? {} : { requestId };
              }
            : () => {
                const requestId = currentRequestId();
                const ids = traceIds();
                return { ...(requestId !== undefined ? { requestId } : {}), ...ids };
              },
      },
      destination,
    );
  }

  log(message: unknown, ...params: unknown[]): void {
    const context = contextOf(params);
    this.write(context !== undefined && BOOT_CONTEXTS.has(context) ? 'debug' : 'info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('verbose', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: LogLevel, message: unknown, params: unknown[]): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const context = contextOf(params);
    const { text, fields } = split(message);
    // Nest's error(message, stack, context): a stack string among the params.
    const stack = params.find((p): p is string => typeof p === 'string' && p !== context && p.includes('\n    at '));
    this.pino[level]({ ...(context !== undefined ? { context } : {}), ...fields, ...(stack !== undefined ? { stack } : {}) }, text);
  }
}

/** Nest passes the context as the last parameter. */
function contextOf(params: unknown[]): string | undefined {
  const last = params[params.length - 1];
  return typeof last === 'string' && !last.includes('\n') ? last : undefined;
}

/** The line's `message` string and the structured fields beside it. */
function split(message: unknown): { text: string; fields: Record<string, unknown> } {
  if (typeof message === 'string') return { text: message, fields: {} };
  if (message instanceof Error) {
    // Whatever type a library gave its `code`, the line keeps it as it is.
    const code = 'code' in message ? message.code : undefined;
    return { text: message.message, fields: { error: { type: message.name, ...(code !== undefined ? { code } : {}), stack: message.stack } } };
  }
  if (message !== null && typeof message === 'object') {
    const { msg, ...fields }: Record<string, unknown> = { ...message };
    return { text: typeof msg === 'string' ? msg : '', fields };
  }
  return { text: String(message), fields: {} };
}

import type { BudgetConfig, HttpConfig, LifecycleConfig, LogLevel } from '../config.types';

type Env = Readonly<Record<string, string | undefined>>;

const PREFIX = 'CENTRALMCP_ROUTER_';
/** Default drain deadline at SIGTERM, below Kubernetes' default 30 s grace period. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;
/** Default time a client has to send one request's headers and body. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** The spellings of a boolean variable; unset or empty is false. */
const BOOLEANS: ReadonlyMap<string, boolean> = new Map([
  ['', false],
  ['false', false],
  ['0', false],
  ['true', true],
  ['1', true],
]);
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'verbose'];

/**
 * Settings that come from the environment rather than the file (architecture §3 table), as the
 * config's slices: only the cursor's secret is still text (the loader makes it a key).
 */
export interface EnvSettings {
  configPath?: string;
  /** `CENTRALMCP_ROUTER_WATCH_CONFIG`: reload the config file when it changes (SIGHUP always does). */
  watchConfig: boolean;
  http: HttpConfig;
  budgets: BudgetConfig;
  cursor: { ttlSeconds: number; secret?: string };
  logLevel: LogLevel;
  lifecycle: LifecycleConfig;
}

/**
 * Reads every `CENTRALMCP_ROUTER_*` variable. Out-of-range or malformed values are problems, never a
 * silent default, so a typo in a Deployment cannot quietly change a budget.
 */
export function readEnvSettings(env: Env, problems: string[]): EnvSettings {
  const optionalInt = (name: string, min: number, max: number): number | undefined => {
    const raw = env[PREFIX + name];
    if (raw === undefined || raw.trim() === '') return undefined;
    const n = Number(raw.trim());
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${PREFIX}${name}: must be an integer from ${min} to ${max}`);
      return undefined;
    }
    return n;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => optionalInt(name, min, max) ?? fallback;
  const list = (name: string): string[] =>
    (env[PREFIX + name] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  const logLevelText = (env[PREFIX + 'LOG_LEVEL'] ?? 'info').trim();
  const logLevel = LOG_LEVELS.find((level) => level === logLevelText);
  if (logLevel === undefined) problems.push(`${PREFIX}LOG_LEVEL: must be one of ${LOG_LEVELS.join(', ')}`);
  const port = int('PORT', 8010, 0, 65535);
  const metricsPort = optionalInt('METRICS_PORT', 1, 65535);
  // Two listeners cannot share one port; the operator meant something else.
  if (metricsPort !== undefined && metricsPort === port) {
    problems.push(`${PREFIX}METRICS_PORT: must differ from ${PREFIX}PORT`);
  }
  const cursorSecret = env[PREFIX + 'CURSOR_SECRET'];
  if (cursorSecret !== undefined && cursorSecret.length < 16) {
    problems.push(`${PREFIX}CURSOR_SECRET: must be at least 16 characters`);
  }
  // Read in this order so that the problems are listed in it.
  const bodyLimitBytes = int('BODY_LIMIT_BYTES', 4 * 1024 * 1024, 65_536, 64 * 1024 * 1024);
  const budgets: BudgetConfig = {
    responseMaxBytes: int('RESPONSE_MAX_BYTES', 200_000, 4096, 8 * 1024 * 1024),
    responseMaxItems: int('RESPONSE_MAX_ITEMS', 200, 1, 100_000),
    batchResponseMaxBytes: int('BATCH_RESPONSE_MAX_BYTES', 300_000, 65_536, 8 * 1024 * 1024),
  };
  const watchText = (env[PREFIX + 'WATCH_CONFIG'] ?? '').trim().toLowerCase();
  const watchConfig = BOOLEANS.get(watchText);
  if (watchConfig === undefined) problems.push(`${PREFIX}WATCH_CONFIG: must be true or false`);
  const cursorTtlSeconds = int('CURSOR_TTL_SECONDS', 900, 30, 3600);
  // Two minutes is past any sane terminationGracePeriodSeconds; a longer drain would be killed anyway.
  const drainTimeoutMs = int('DRAIN_TIMEOUT_MS', DEFAULT_DRAIN_TIMEOUT_MS, 0, 120_000);
  // A second is the least a real client on a slow link needs; ten minutes is past any sane upload.
  const requestTimeoutMs = int('REQUEST_TIMEOUT_MS', DEFAULT_REQUEST_TIMEOUT_MS, 1000, 600_000);
  return {
    configPath: env[PREFIX + 'CONFIG']?.trim() || undefined,
    watchConfig: watchConfig ?? false,
    http: {
      host: env[PREFIX + 'HOST']?.trim() || '127.0.0.1',
      port,
      bodyLimitBytes,
      requestTimeoutMs,
      allowedHosts: list('ALLOWED_HOSTS'),
      allowedOrigins: list('ALLOWED_ORIGINS'),
      ...(metricsPort !== undefined ? { metricsPort } : {}),
    },
    budgets,
    cursor: { ttlSeconds: cursorTtlSeconds, secret: cursorSecret },
    logLevel: logLevel ?? 'info',
    lifecycle: { drainTimeoutMs },
  };
}

import { plainToInstance } from 'class-transformer';
import { Validator, type ValidationError } from './class-validator-parts';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { isJsonObject } from '../common/json-object';
import { errnoCode, messageOf } from '../common/thrown';
import { ConfigError } from './config.errors';
import {
  BACKEND_DEFAULTS,
  DEFAULT_MAX_WAIT_MS,
  EMBEDDINGS_DEFAULTS,
  LEARNING_DEFAULTS,
  HTTP_BACKEND_DEFAULTS,
  READ_ONLY_POLICY_DEFAULTS,
  REDIS_STORE_DEFAULTS,
  STDIO_BACKEND_DEFAULTS,
  STDIO_DEFAULTS,
  WRITES_DEFAULTS,
  PUBLISH_DEFAULTS,
} from './config.defaults';
import {
  BACKEND_TRANSPORTS,
  FileConfigDto,
  type GlobalRateLimitDto,
  HttpBackendDto,
  StdioBackendDto,
  type BackendDto,
  type DiscoveryDto,
  type LearningDto,
  type RateLimitDto,
} from './config.schema';
import type { BackendConfig, DiscoveryConfig, LearningConfig, RateLimitSettings, RateLimitStoreConfig, RouterConfig } from './config.types';
import { withDefaults } from './domain/defaults';
import { readEnvSettings } from './domain/env-settings';
import { readTracingSettings } from './domain/tracing-settings';
import { expandEnv } from './domain/expand-env';
import { buildSecurity } from './domain/security-settings';
import { trustSettings } from './domain/trust-settings';

/** The demo config shipped in the repository: `npm start` serves it with no set-up. */
export const DEMO_CONFIG_PATH = resolve(__dirname, '../../../config/demo.yaml');

const BACKEND_NAME = /^[a-z][a-z0-9-]{0,62}$/;
/** The router's variables a stdio child inherits (architecture §3); everything else must be configured. */
const INHERITED_VARIABLES = ['PATH', 'HOME'] as const;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Builds the validated config from the environment and the config file it names. Collects every
 * problem before failing, so one boot names them all; throws ConfigError.
 */
export function loadConfig(env: Env, readFile: (path: string) => string = (p) => readFileSync(p, 'utf8')): RouterConfig {
  const problems: string[] = [];
  const settings = readEnvSettings(env, problems);
  const tracing = readTracingSettings(env, problems);
  const path = resolve(settings.configPath ?? DEMO_CONFIG_PATH);
  let text: string;
  try {
    text = readFile(path);
  } catch (err) {
    throw new ConfigError([`CENTRALMCP_ROUTER_CONFIG: cannot read ${path} (${errnoCode(err) ?? 'error'})`]);
  }
  const before = problems.length;
  const file = parseDocument(text, path, problems);
  // An unparsable file has no fields to judge: anything more said about it would mislead.
  if (problems.length > before) throw new ConfigError(problems);
  const { value, missing } = expandEnv(file, env);
  for (const m of missing) problems.push(`${m.path}: environment variable ${m.variable} is not set`);
  const inheritedEnv = Object.fromEntries(
    INHERITED_VARIABLES.flatMap((key): [string, string][] => {
      const value = env[key];
      return value === undefined ? [] : [[key, value]];
    }),
  );
  const config = buildConfig(value, dirname(path), inheritedEnv, settings.http.host, problems);
  if (problems.length > 0 || !config) throw new ConfigError(problems);
  return {
    http: settings.http,
    budgets: settings.budgets,
    // Without a configured secret each process signs with its own random key: cursors then work
    // only on the replica that issued them and die with it (architecture §3).
    cursor: {
      ttlSeconds: settings.cursor.ttlSeconds,
      secret: settings.cursor.secret ? Buffer.from(settings.cursor.secret, 'utf8') : randomBytes(32),
    },
    logLevel: settings.logLevel,
    lifecycle: settings.lifecycle,
    ...(tracing !== undefined ? { tracing } : {}),
    ...config,
    source: { path, watch: settings.watchConfig },
  };
}

/** class-validator's validator, as its `validateSync` uses it (it holds no state between calls). */
const VALIDATOR = new Validator();

/** class-validator rules that check a value's type: when one fails, the bounds after it say nothing more. */
const TYPE_RULES = new Set(['isInt', 'isNumber', 'isString', 'isBoolean', 'isArray', 'isObject', 'isIn', 'isUrl', 'nestedValidation']);

function parseDocument(text: string, path: string, problems: string[]): unknown {
  try {
    return extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    // The yaml package's message ends with an excerpt of the lines around the error: keep it.
    problems.push(`${path}: not valid ${extname(path).toLowerCase() === '.json' ? 'JSON' : 'YAML'}: ${messageOf(err).trimEnd()}`);
    return undefined;
  }
}

type FileParts = Pick<RouterConfig, 'backends' | 'policy' | 'rateLimit' | 'rateLimitStore' | 'principalRateLimit' | 'stdio'> &
  Required<Pick<RouterConfig, 'auth' | 'access' | 'audit' | 'discovery' | 'trust' | 'writes' | 'publish'>>;

function buildConfig(raw: unknown, configDir: string, inheritedEnv: Record<string, string>, listenHost: string, problems: string[]): FileParts | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push('config: the document must be a mapping with a `backends` field');
    return undefined;
  }
  const file = plainToInstance(FileConfigDto, raw);
  problems.push(...describe(VALIDATOR.validateSync(file, { whitelist: true, forbidNonWhitelisted: true }), ''));
  if (typeof file.backends !== 'object' || file.backends === null || Array.isArray(file.backends)) return undefined;
  const names = Object.keys(file.backends);
  if (names.length === 0) problems.push('backends: at least one backend is required');
  const backends: BackendConfig[] = [];
  for (const name of names) {
    const backend = buildBackend(name, file.backends[name], configDir, inheritedEnv, problems);
    if (backend) backends.push(backend);
  }
  return {
    backends,
    policy: { readOnly: withDefaults(file.policy?.readOnly, READ_ONLY_POLICY_DEFAULTS) },
    rateLimit: globalRateLimitOf(file.rateLimit, problems),
    rateLimitStore: storeOf(file.rateLimit, problems),
    principalRateLimit: rateLimitOf(file.principalRateLimit),
    ...buildSecurity(file, listenHost, configDir, problems),
    discovery: discoveryOf(file.discovery, storeOf(file.rateLimit, []), configDir, problems),
    trust: trustSettings(file.trust, (p) => resolve(configDir, p), problems),
    writes: withDefaults(file.writes, WRITES_DEFAULTS),
    ...(file.stdio !== undefined ? { stdio: withDefaults(file.stdio, STDIO_DEFAULTS) } : {}),
    publish: withDefaults(file.publish, PUBLISH_DEFAULTS),
  };
}

function discoveryOf(dto: DiscoveryDto | undefined, shared: RateLimitStoreConfig, configDir: string, problems: string[]): DiscoveryConfig {
  const embeddings = dto?.embeddings;
  const learning = learningOf(dto?.learning, shared, configDir, problems);
  return {
    ...(embeddings !== undefined
      ? { embeddings: { ...withDefaults(embeddings, EMBEDDINGS_DEFAULTS), headers: stringMap(embeddings.headers, 'discovery.embeddings.headers', problems) } }
      : {}),
    ...(learning !== undefined ? { learning } : {}),
  };
}

/** Undefined unless enabled. `store: redis` shares the rate limits' Redis, so it needs one. */
function learningOf(dto: LearningDto | undefined, shared: RateLimitStoreConfig, configDir: string, problems: string[]): LearningConfig | undefined {
  const { store, path, ...rest } = withDefaults(dto, LEARNING_DEFAULTS);
  if (!rest.enabled) return undefined;
  if (store === 'file') return { ...rest, store: { kind: 'file', path: resolve(configDir, path ?? '') } };
  if (store === 'memory') return { ...rest, store: { kind: 'memory' } };
  // Any other value was refused by the schema already.
  if (store !== 'redis') return undefined;
  if (shared.kind !== 'redis') {
    problems.push('discovery.learning.store: redis needs rateLimit.store: redis (the same Redis is used)');
    return undefined;
  }
  // Its own keys beside the buckets (its own Redis Cluster slot with the default prefix).
  const keyPrefix = shared.keyPrefix.includes('{rate-limit}') ? shared.keyPrefix.replace('{rate-limit}', '{learning}') : `${shared.keyPrefix}learning:`;
  return { ...rest, store: { ...shared, keyPrefix } };
}

function buildBackend(name: string, raw: unknown, configDir: string, inheritedEnv: Record<string, string>, problems: string[]): BackendConfig | undefined {
  const at = `backends.${name}`;
  if (!BACKEND_NAME.test(name)) problems.push(`${at}: backend names must match [a-z][a-z0-9-]{0,62}`);
  if (!isJsonObject(raw)) {
    problems.push(`${at}: must be a mapping`);
    return undefined;
  }
  const transport = raw.transport;
  // The transport decides which other fields apply: judged first, and alone, so a typo in it is
  // one message rather than a list of fields "missing" for the wrong transport.
  if (!isBackendTransport(transport)) {
    problems.push(
      transport === undefined
        ? `${at}.transport: is required (one of ${BACKEND_TRANSPORTS.join(', ')})`
        : `${at}.transport: must be one of ${BACKEND_TRANSPORTS.join(', ')} (got ${JSON.stringify(transport)})`,
    );
    return undefined;
  }
  if (transport === 'stdio') {
    const dto = plainToInstance(StdioBackendDto, raw);
    if (!validates(dto, at, problems)) return undefined;
    // Relative paths in a backend's command line are relative to the config file, as an operator
    // writing the file would read them.
    return {
      name,
      ...withDefaults(dto, { ...BACKEND_DEFAULTS, ...STDIO_BACKEND_DEFAULTS }),
      transport: 'stdio',
      rateLimit: rateLimitOf(dto.rateLimit),
      env: stringMap(dto.env, `${at}.env`, problems),
      inheritedEnv,
      cwd: resolve(configDir, dto.cwd ?? '.'),
      era: dto.era ?? 'auto',
    };
  }
  const http = plainToInstance(HttpBackendDto, raw);
  if (!validates(http, at, problems)) return undefined;
  // The HTTP+SSE transport is 2024-11-05's: no 2026-07-28 server speaks it (spec 2026-07-28,
  // "Deprecated" item 2), so only `legacy` makes sense there.
  if (http.transport === 'sse' && http.era !== undefined && http.era !== 'legacy') {
    problems.push(`${at}.era: transport sse speaks only the legacy era (got ${JSON.stringify(http.era)}); use transport http for a 2026-07-28 backend`);
    return undefined;
  }
  const { era, ...fields } = withDefaults(http, { ...BACKEND_DEFAULTS, ...HTTP_BACKEND_DEFAULTS });
  return {
    name,
    ...fields,
    transport,
    rateLimit: rateLimitOf(http.rateLimit),
    headers: stringMap(http.headers, `${at}.headers`, problems),
    // An sse backend is always legacy, and its config says nothing of eras.
    ...(http.transport === 'http' ? { era: era ?? 'auto' } : {}),
  };
}

function isBackendTransport(value: unknown): value is BackendDto['transport'] {
  return BACKEND_TRANSPORTS.some((transport) => transport === value);
}

/** Adds the problems class-validator finds in a backend's block; true when there are none. */
function validates(dto: BackendDto, at: string, problems: string[]): boolean {
  const found = describe(VALIDATOR.validateSync(dto, { whitelist: true, forbidNonWhitelisted: true }), `${at}.`);
  problems.push(...found);
  return found.length === 0;
}

function stringMap(map: Record<string, unknown> | undefined, at: string, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(map ?? {})) {
    if (typeof value === 'string') out[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') out[key] = String(value);
    else problems.push(`${at}.${key}: must be a string`);
  }
  return out;
}

/** A bucket's settings; `defaultMaxWaitMs` applies to the global bucket, a backend's inherits it. */
function rateLimitOf(dto: RateLimitDto | undefined, defaultMaxWaitMs?: number): RateLimitSettings | undefined {
  if (!dto) return undefined;
  const maxWaitMs = dto.maxWaitMs ?? defaultMaxWaitMs;
  return { ratePerSecond: dto.ratePerSecond, burst: dto.burst, ...(maxWaitMs !== undefined ? { maxWaitMs } : {}) };
}

/** The global bucket, when the block sets a rate (it may only choose the store). */
function globalRateLimitOf(dto: GlobalRateLimitDto | undefined, problems: string[]): RateLimitSettings | undefined {
  if (dto?.ratePerSecond === undefined || dto.burst === undefined) {
    // Silently dropping it would leave every other bucket on the 10 s default.
    if (dto?.maxWaitMs !== undefined) problems.push('rateLimit.maxWaitMs: applies only with ratePerSecond and burst');
    return undefined;
  }
  return rateLimitOf({ ratePerSecond: dto.ratePerSecond, burst: dto.burst, maxWaitMs: dto.maxWaitMs }, DEFAULT_MAX_WAIT_MS);
}

function storeOf(dto: GlobalRateLimitDto | undefined, problems: string[]): RateLimitStoreConfig {
  const redis = dto?.redis;
  if (dto?.store !== 'redis') {
    if (redis !== undefined) problems.push('rateLimit.redis: applies only with rateLimit.store: redis');
    return { kind: 'memory' };
  }
  if (redis === undefined) {
    problems.push('rateLimit.redis: required with rateLimit.store: redis (at least its url)');
    return { kind: 'memory' };
  }
  return { kind: 'redis', ...withDefaults(redis, REDIS_STORE_DEFAULTS) };
}

/**
 * Flattens class-validator's tree into `field.path: message` lines, one per field: a missing
 * field "is required"; a value of the wrong type gets the type's message only (not also every
 * bound it then fails); otherwise the first rule broken.
 */
function describe(errors: ValidationError[], prefix: string): string[] {
  return errors.flatMap((e) => {
    const path = `${prefix}${e.property}`;
    const constraints = e.constraints ?? {};
    const names = Object.keys(constraints);
    const typeRule = names.find((name) => TYPE_RULES.has(name));
    const own =
      names.length === 0
        ? []
        : e.value === undefined && !('whitelistValidation' in constraints)
          ? [`${path}: is required`]
          : [`${path}: ${constraints[typeRule ?? names[0]]}`];
    return [...own, ...describe(e.children ?? [], `${path}.`)];
  });
}

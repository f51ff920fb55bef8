import type {
  API_KEY_DEFAULTS,
  BACKEND_DEFAULTS,
  EMBEDDINGS_DEFAULTS,
  LEARNING_DEFAULTS,
  HTTP_BACKEND_DEFAULTS,
  JWT_DEFAULTS,
  READ_ONLY_POLICY_DEFAULTS,
  REDIS_STORE_DEFAULTS,
  STDIO_BACKEND_DEFAULTS,
  TRUST_DEFAULTS,
  WRITES_DEFAULTS,
} from './config.defaults';
import type {
  AccessRuleDto,
  ApiKeyDto,
  AuthDto,
  BackendDto,
  EmbeddingsDto,
  LearningDto,
  HttpBackendDto,
  JwtDto,
  RateLimitDto,
  ReadOnlyPolicyDto,
  RedisStoreDto,
  StdioBackendDto,
  TrustDto,
  WritesDto,
} from './config.schema';
import type { WithDefaults } from './domain/defaults';

/**
 * Typed, validated router configuration (architecture §3). Built once at boot by `loadConfig`.
 *
 * The file's blocks are not declared here: each is its validated class in `config.schema.ts`
 * (fields, bounds and meaning) with its defaults from `config.defaults.ts`, and the types below are
 * derived from the two. What is declared here is only what the file does not hold: the settings
 * read from the environment, the names and resolved paths the loader adds, and the unions it builds.
 */

export type RateLimitSettings = RateLimitDto;

/**
 * Where rate-limit buckets live (architecture §7). `memory`: in each replica, so N replicas allow N
 * times each rate. `redis`: in one Redis shared by every replica, so each rate is the cluster's.
 */
export type RateLimitStoreConfig = { kind: 'memory' } | ({ kind: 'redis' } & RedisStoreConfig);
export type RedisStoreConfig = WithDefaults<RedisStoreDto, typeof REDIS_STORE_DEFAULTS>;
export type RateLimitFailPolicy = RedisStoreConfig['fail'];

type BackendCommon = WithDefaults<Omit<BackendDto, 'transport'>, typeof BACKEND_DEFAULTS> & {
  /** Backend name, `[a-z][a-z0-9-]{0,62}`; the `server` of every tool it serves. */
  name: string;
};

export type StdioBackendConfig = BackendCommon &
  WithDefaults<Omit<StdioBackendDto, keyof BackendDto>, typeof STDIO_BACKEND_DEFAULTS> & {
    transport: 'stdio';
    /**
     * What the child inherits from the router: PATH (to find its interpreter) and HOME (for its
     * caches), nothing else, so the router's own secrets never reach a backend. `env` overrides it.
     */
    inheritedEnv: Record<string, string>;
  };

export type BackendEra = NonNullable<StdioBackendDto['era']>;

export type HttpBackendConfig = BackendCommon &
  WithDefaults<Omit<HttpBackendDto, keyof BackendDto>, typeof HTTP_BACKEND_DEFAULTS> & { transport: 'http' | 'sse' };

export type BackendConfig = StdioBackendConfig | HttpBackendConfig;

export type ReadOnlyPolicyConfig = WithDefaults<ReadOnlyPolicyDto, typeof READ_ONLY_POLICY_DEFAULTS>;

export interface HttpConfig {
  host: string;
  port: number;
  /** Largest request body accepted on /mcp (413 beyond). */
  bodyLimitBytes: number;
  /** Host header names accepted; empty means "loopback names on a loopback address, else any". */
  allowedHosts: string[];
  allowedOrigins: string[];
  /**
   * `CENTRALMCP_ROUTER_REQUEST_TIMEOUT_MS`: the time a client has to send one request's headers
   * and body; a slower one is answered 408 and disconnected. Default 30000.
   */
  requestTimeoutMs?: number;
  /**
   * `CENTRALMCP_ROUTER_METRICS_PORT`: when set, /metrics and /health are served on this port
   * instead of the main one, so they stay open without sharing a port with the authenticated /mcp.
   */
  metricsPort?: number;
}

export interface BudgetConfig {
  responseMaxBytes: number;
  responseMaxItems: number;
  batchResponseMaxBytes: number;
}

export interface CursorConfig {
  ttlSeconds: number;
  /** HMAC-SHA256 key. */
  secret: Buffer;
}

/** Graceful shutdown (SIGTERM): how long in-flight /mcp requests may take to finish. */
export interface LifecycleConfig {
  /** Deadline of the drain in milliseconds; after it the router closes whatever is still running. */
  drainTimeoutMs: number;
}

export type AuthMode = AuthDto['mode'];
export type JwtAlgorithm = NonNullable<JwtDto['algorithms']>[number];
export type ApiKeyConfig = WithDefaults<ApiKeyDto, typeof API_KEY_DEFAULTS>;
export type JwtConfig = WithDefaults<JwtDto, typeof JWT_DEFAULTS>;

export type AuthConfig =
  | { mode: 'none'; allowInsecure: boolean }
  | { mode: 'apiKeys'; allowInsecure: boolean; apiKeys: ApiKeyConfig[] }
  | { mode: 'jwt'; allowInsecure: boolean; jwt: JwtConfig };

export type AccessRule = AccessRuleDto;

export interface AccessConfig {
  /** Undefined when the file has no `access` block: then only auth mode `none` may call anything. */
  rules?: AccessRule[];
}

/** `audit` once loaded: a file sink's path is absolute. */
export type AuditConfig = { sink: 'stdout' } | { sink: 'file'; path: string };

export type EmbeddingsConfig = WithDefaults<EmbeddingsDto, typeof EMBEDDINGS_DEFAULTS>;

/** `discovery.learning` once loaded: a file store's path is absolute; a Redis store has its connection. */
export type LearningConfig = Omit<WithDefaults<LearningDto, typeof LEARNING_DEFAULTS>, 'store' | 'path'> & {
  store: { kind: 'memory' } | { kind: 'file'; path: string } | ({ kind: 'redis' } & RedisStoreConfig);
};

export interface DiscoveryConfig {
  embeddings?: EmbeddingsConfig;
  /** Absent: nothing is learned. */
  learning?: LearningConfig;
}

export type TrustMode = NonNullable<TrustDto['mode']>;
export type TrustConfig = WithDefaults<TrustDto, typeof TRUST_DEFAULTS>;

export type WritesConfig = WithDefaults<WritesDto, typeof WRITES_DEFAULTS>;

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'verbose';

/** The file a loaded config came from, so a reload reads it again (architecture §3.1). */
export interface ConfigSource {
  /** Absolute path of the config file. */
  path: string;
  /** `CENTRALMCP_ROUTER_WATCH_CONFIG`: a change of the file reloads it, as SIGHUP does. */
  watch: boolean;
}

export interface RouterConfig {
  http: HttpConfig;
  budgets: BudgetConfig;
  cursor: CursorConfig;
  logLevel: LogLevel;
  backends: BackendConfig[];
  policy: { readOnly: ReadOnlyPolicyConfig };
  /** The global bucket; none when absent. Read it through RATE_LIMIT_CONFIG. */
  rateLimit?: RateLimitSettings;
  /** Optional (default: memory); the loader always sets it. Read it through RATE_LIMIT_STORE_CONFIG. */
  rateLimitStore?: RateLimitStoreConfig;
  /** A bucket of this size for each principal; none when absent. Read it through RATE_LIMIT_CONFIG. */
  principalRateLimit?: RateLimitSettings;
  /**
   * Optional so a config built in code (tests) gets the defaults; the loader always sets it.
   * Read it through LIFECYCLE_CONFIG, never here.
   */
  lifecycle?: LifecycleConfig;
  /** Optional like `lifecycle` (default: mode none); read it through AUTH_CONFIG. */
  auth?: AuthConfig;
  /** Optional (default: no rules); read it through ACCESS_CONFIG. */
  access?: AccessConfig;
  /** Optional (default: stdout); read it through AUDIT_CONFIG. */
  audit?: AuditConfig;
  /** Optional (default: no embeddings); read it through DISCOVERY_CONFIG. */
  discovery?: DiscoveryConfig;
  /** Optional (default: mode off, re-list every 300 s); read it through TRUST_CONFIG. */
  trust?: TrustConfig;
  /** Optional (default: disabled); read it through WRITES_CONFIG. */
  writes?: WritesConfig;
  /** Set by the loader; a config built in code has none, and nothing to reload. */
  source?: ConfigSource;
  /** Set only when an OTLP traces endpoint is configured (architecture §8.1); `createApp` builds the tracing from it, before Nest. */
  tracing?: TracingConfig;
}

/** Where the router exports its spans; everything else the OpenTelemetry SDK reads from its own variables. */
export interface TracingConfig {
  /** The OTLP/HTTP URL spans are POSTed to. */
  endpoint: string;
  protocol: 'http/protobuf' | 'http/json';
  /** `service.name` of every span (`OTEL_SERVICE_NAME`, default `centralmcp-router`). */
  serviceName: string;
}

/** Rate limiting's slice (architecture §7): the global and per-principal buckets. A backend's own bucket is in its BackendConfig. */
export type RateLimitConfig = Pick<RouterConfig, 'rateLimit' | 'principalRateLimit'>;

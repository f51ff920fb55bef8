/** Typed, validated router configuration (architecture §3). Built once at boot by `loadConfig`. */

export interface RateLimitSettings {
  ratePerSecond: number;
  burst: number;
  /** Longest wait for a token; a backend's own, else the global bucket's, else 10000 (architecture §7). */
  maxWaitMs?: number;
}

/**
 * Where rate-limit buckets live (architecture §7, issue 15). `memory`: in each replica, so N replicas
 * allow N times each rate. `redis`: in one Redis shared by every replica, so each rate is the
 * cluster's.
 */
export type RateLimitStoreConfig = { kind: 'memory' } | ({ kind: 'redis' } & RedisStoreConfig);

/** What a call does while Redis cannot answer: use the per-replica share, or fail with `error`. */
export type RateLimitFailPolicy = 'open' | 'closed';

export interface RedisStoreConfig {
  /** `redis://` or `rediss://` (TLS); user and password in the URL. Never logged. */
  url: string;
  /** Prefix of every bucket key, so several routers (or other tenants) can share one Redis. */
  keyPrefix: string;
  connectTimeoutMs: number;
  /** A reservation not answered within this is a Redis failure (the failure policy applies). */
  commandTimeoutMs: number;
  fail: RateLimitFailPolicy;
  /** Fail open: each replica then allows `rate / replicas` (and `burst / replicas`, at least 1). */
  replicas: number;
}

interface BackendCommon {
  /** Backend name, `[a-z][a-z0-9-]{0,62}`; the `server` of every tool it serves. */
  name: string;
  /** Readiness waits for it. */
  required: boolean;
  /** Per-call timeout in milliseconds. */
  timeoutMs: number;
  rateLimit?: RateLimitSettings;
}

export interface StdioBackendConfig extends BackendCommon {
  transport: 'stdio';
  command: string;
  args: string[];
  /** The child's configured environment (variables already expanded). */
  env: Record<string, string>;
  /**
   * What the child inherits from the router: PATH (to find its interpreter) and HOME (for its
   * caches), nothing else, so the router's own secrets never reach a backend. `env` overrides it.
   */
  inheritedEnv: Record<string, string>;
  /** Working directory of the child; default: the router's. */
  cwd?: string;
  /** Absent means `auto`: probe each new child with `server/discover` (spec stdio "Backward Compatibility"). */
  era?: BackendEra;
}

/**
 * Which MCP era the router speaks to a stdio or Streamable HTTP backend (docs/backend-eras.md):
 * `legacy` opens with `initialize` (2025-11-25 and before), `modern` speaks 2026-07-28 only, `auto`
 * probes with `server/discover` on each connection attempt and falls back to `initialize`.
 */
export type BackendEra = 'auto' | 'legacy' | 'modern';

export interface HttpBackendConfig extends BackendCommon {
  transport: 'http' | 'sse';
  url: string;
  headers: Record<string, string>;
  /** Streamable HTTP only; absent means `auto`. An `sse` backend is always `legacy`. */
  era?: BackendEra;
}

export type BackendConfig = StdioBackendConfig | HttpBackendConfig;

export interface ReadOnlyPolicyConfig {
  /** `backend:tool` glob patterns treated as read-only although not annotated so. */
  allow: string[];
  /** `backend:tool` glob patterns never callable through the read path; deny wins. */
  deny: string[];
}

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

/** Who the caller is (architecture §10). */
export type AuthMode = 'none' | 'apiKeys' | 'jwt';

/** JWS algorithms a JWT may be signed with: asymmetric only, so never `none` and never HS*. */
export const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

export interface ApiKeyConfig {
  /** The identity the key authenticates (audit logs, cursor binding). Several keys may share one (rotation). */
  principal: string;
  /** SHA-256 of the key, 64 lower-case hex digits; the key itself is never configured. */
  sha256: string;
  groups: string[];
}

/** An OAuth 2.1 resource server's view of its authorization server. */
export interface JwtConfig {
  /** Exact `iss`; also the one entry of `authorization_servers` in the RFC 9728 metadata. */
  issuer: string;
  /** Exact `aud` (RFC 8707): this router's public /mcp URL, and the metadata's `resource`. */
  audience: string;
  jwksUri: string;
  /** Claim holding the caller's groups: an array of strings or a space-separated string. */
  groupsClaim: string;
  algorithms: JwtAlgorithm[];
  /** Skew allowed on `exp` and `nbf`. */
  clockToleranceSeconds: number;
}

export type AuthConfig =
  | { mode: 'none'; allowInsecure: boolean }
  | { mode: 'apiKeys'; allowInsecure: boolean; apiKeys: ApiKeyConfig[] }
  | { mode: 'jwt'; allowInsecure: boolean; jwt: JwtConfig };

/** One access rule: for a principal in any of `groups` (`*`: every principal), these tools. */
export interface AccessRule {
  groups: string[];
  /** `backend:tool` globs, as in `policy.readOnly`; an empty list denies everything to those groups. */
  allow: string[];
  /** `backend:tool` globs these groups may also call through `invoke_tool` (issue 14); default none. */
  write?: string[];
}

export interface AccessConfig {
  /** Undefined when the file has no `access` block: then only auth mode `none` may call anything. */
  rules?: AccessRule[];
}

/** Where audit lines go: one JSON line per backend call and per refused call. */
export type AuditConfig = { sink: 'stdout' } | { sink: 'file'; path: string };

/**
 * An OpenAI-compatible `/v1/embeddings` endpoint for `find_tool`'s dense ranking (issue #10,
 * part 3). Optional: without it ranking is lexical only. The router never depends on it: a failed
 * or slow answer makes `find_tool` answer from the lexical ranking.
 */
export interface EmbeddingsConfig {
  /** Full URL of the embeddings endpoint, e.g. `http://ollama:11434/v1/embeddings`. */
  url: string;
  /** The `model` sent with every request. */
  model: string;
  /** Sent with every request (credentials: `${VAR}` expanded at boot, never logged). */
  headers: Record<string, string>;
  /** Deadline of one query's embedding; past it `find_tool` answers from the lexical ranking. */
  timeoutMs: number;
  /** Deadline of one batch of tool texts at catalog refresh (in the background). */
  batchTimeoutMs: number;
  /** Tool texts per request (TEI refuses more than 32 by default; OpenAI takes up to 2048). */
  batchSize: number;
}

/** How `find_tool` ranks beyond its lexical ranking. */
export interface DiscoveryConfig {
  embeddings?: EmbeddingsConfig;
}

/**
 * Pinned tool definitions (issue 14, part 1). `off`: definitions are taken as the backend says.
 * `warn`: a tool whose definition differs from its approved pin (or has none) is logged, counted and
 * marked in `find_tool`. `enforce`: such a tool is quarantined (hidden from `find_tool`, its calls
 * answer `blocked`).
 */
export type TrustMode = 'off' | 'warn' | 'enforce';

export interface TrustConfig {
  mode: TrustMode;
  /** The pins file (absolute); required unless mode is `off`. */
  pinsFile?: string;
  /** A backend with no pin at all has its first catalog approved as it is (bootstrapping). */
  approveNewBackends: boolean;
  /** Every backend's tools are listed again this often, so a change sent without `list_changed` is seen; 0: never. */
  relistSeconds: number;
}

/**
 * The write path (issue 14, part 2): `invoke_tool` is published only when `enabled`, and calls only
 * tools matched by `allow` and not by `deny` (deny wins), for a caller whose access rule grants them.
 */
export interface WritesConfig {
  enabled: boolean;
  /** `backend:tool` globs. */
  allow: string[];
  deny: string[];
}

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'verbose';

export interface RouterConfig {
  http: HttpConfig;
  budgets: BudgetConfig;
  cursor: CursorConfig;
  logLevel: LogLevel;
  backends: BackendConfig[];
  policy: { readOnly: ReadOnlyPolicyConfig };
  rateLimit?: RateLimitSettings;
  /** Optional (default: memory); the loader always sets it. */
  rateLimitStore?: RateLimitStoreConfig;
  /** A bucket of this size for each principal; none when absent. */
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
}

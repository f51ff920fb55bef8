/** Typed, validated router configuration (DESIGN §3). Built once at boot by `loadConfig`. */

export interface RateLimitSettings {
  ratePerSecond: number;
  burst: number;
  /** Longest wait for a token; a backend's own, else the global bucket's, else 10000 (DESIGN §7). */
  maxWaitMs?: number;
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
}

export interface HttpBackendConfig extends BackendCommon {
  transport: 'http' | 'sse';
  url: string;
  headers: Record<string, string>;
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

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'verbose';

export interface RouterConfig {
  http: HttpConfig;
  budgets: BudgetConfig;
  cursor: CursorConfig;
  logLevel: LogLevel;
  backends: BackendConfig[];
  policy: { readOnly: ReadOnlyPolicyConfig };
  rateLimit?: RateLimitSettings;
  /**
   * Optional so a config built in code (tests) gets the defaults; the loader always sets it.
   * Read it through LIFECYCLE_CONFIG, never here.
   */
  lifecycle?: LifecycleConfig;
}

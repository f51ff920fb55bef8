// Each module injects the slice of the validated config it needs, never the whole config.

export const HTTP_CONFIG = Symbol('centralmcp-router:config:http');
export const BUDGET_CONFIG = Symbol('centralmcp-router:config:budgets');
export const CURSOR_CONFIG = Symbol('centralmcp-router:config:cursor');
export const BACKENDS_CONFIG = Symbol('centralmcp-router:config:backends');
/** The global and per-principal buckets (`RateLimitConfig`); a backend's own is in BACKENDS_CONFIG. */
export const RATE_LIMIT_CONFIG = Symbol('centralmcp-router:config:rate-limit');
/** Where shared state lives (`rateLimit.store`): rate-limit buckets, and used confirmations with writes on. */
export const RATE_LIMIT_STORE_CONFIG = Symbol('centralmcp-router:config:rate-limit-store');
export const POLICY_CONFIG = Symbol('centralmcp-router:config:policy');
export const LIFECYCLE_CONFIG = Symbol('centralmcp-router:config:lifecycle');
export const AUTH_CONFIG = Symbol('centralmcp-router:config:auth');
export const ACCESS_CONFIG = Symbol('centralmcp-router:config:access');
export const AUDIT_CONFIG = Symbol('centralmcp-router:config:audit');
export const DISCOVERY_CONFIG = Symbol('centralmcp-router:config:discovery');
export const TRUST_CONFIG = Symbol('centralmcp-router:config:trust');
export const WRITES_CONFIG = Symbol('centralmcp-router:config:writes');
/** `() => RouterConfig`: loads and validates the config from the environment and its file again (a reload); throws ConfigError. */
export const CONFIG_LOADER = Symbol('centralmcp-router:config:loader');
export const PUBLISH_CONFIG = Symbol('centralmcp-router:config:publish');

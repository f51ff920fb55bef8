/** The whole validated config; modules inject the slice they need instead. */
export const ROUTER_CONFIG = Symbol('centralmcp-router:config');
export const HTTP_CONFIG = Symbol('centralmcp-router:config:http');
export const BUDGET_CONFIG = Symbol('centralmcp-router:config:budgets');
export const CURSOR_CONFIG = Symbol('centralmcp-router:config:cursor');
export const BACKENDS_CONFIG = Symbol('centralmcp-router:config:backends');
export const POLICY_CONFIG = Symbol('centralmcp-router:config:policy');
export const LIFECYCLE_CONFIG = Symbol('centralmcp-router:config:lifecycle');
export const AUTH_CONFIG = Symbol('centralmcp-router:config:auth');
export const ACCESS_CONFIG = Symbol('centralmcp-router:config:access');
export const AUDIT_CONFIG = Symbol('centralmcp-router:config:audit');
export const DISCOVERY_CONFIG = Symbol('centralmcp-router:config:discovery');
export const TRUST_CONFIG = Symbol('centralmcp-router:config:trust');
export const WRITES_CONFIG = Symbol('centralmcp-router:config:writes');

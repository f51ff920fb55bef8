import { isDeepStrictEqual } from 'node:util';
import { TRUST_DEFAULTS, WRITES_DEFAULTS } from '../config.defaults';
import type { AuthConfig, BackendConfig, RouterConfig, TrustConfig } from '../config.types';

/**
 * What a reload changed, by name only: an audit line and a log line carry it, so it never holds a
 * value (a key, a header, a URL's credentials).
 */
export interface ConfigChange {
  backendsAdded: string[];
  backendsRemoved: string[];
  /** Backends whose block changed: each gets a new connection (a rate limit alone only re-buckets). */
  backendsChanged: string[];
  /** Sections of the file whose change now applies. */
  sectionsChanged: string[];
  /** Sections changed in the file that apply only at the next start: the running value stays. */
  restartRequired: string[];
}

export interface ReloadPlan {
  /** The config to run from now on: the new file, less what needs a restart. */
  config: RouterConfig;
  change: ConfigChange;
}

/** Sections read once at boot, by what they open: a listener, a file, a connection, a watch. */
const RESTART_SECTIONS = ['audit', 'discovery', 'rateLimitStore'] as const;
/** Sections that apply to every call that starts after the reload. */
const LIVE_SECTIONS = ['policy', 'access', 'rateLimit', 'principalRateLimit'] as const;

/**
 * Plans a reload: compares the running config with one freshly loaded (and so already validated
 * whole) and says what applies now. Settings from the environment cannot have changed (a process
 * keeps its environment) and are kept as running, the cursor key included, so cursors issued before
 * the reload stay valid. So is every section that only a restart applies; the plan names them.
 */
export function planReload(running: RouterConfig, loaded: RouterConfig): ReloadPlan {
  const sectionsChanged: string[] = [];
  const restartRequired: string[] = [];
  for (const section of LIVE_SECTIONS) {
    if (!isDeepStrictEqual(running[section], loaded[section])) sectionsChanged.push(section);
  }
  for (const section of RESTART_SECTIONS) {
    if (!isDeepStrictEqual(running[section], loaded[section])) restartRequired.push(section);
  }
  const auth = planAuth(running.auth, loaded.auth);
  if (auth === 'applies') sectionsChanged.push('auth');
  if (auth === 'restart') restartRequired.push('auth');
  const trust = planTrust(running.trust ?? TRUST_DEFAULTS, loaded.trust ?? TRUST_DEFAULTS);
  if (trust === 'applies') sectionsChanged.push('trust');
  if (trust === 'restart') restartRequired.push('trust');
  const runningWrites = running.writes ?? WRITES_DEFAULTS;
  const loadedWrites = loaded.writes ?? WRITES_DEFAULTS;
  // Whether invoke_tool is published at all is told to clients at initialize: a restart changes it.
  const writes = { ...loadedWrites, enabled: runningWrites.enabled };
  if (loadedWrites.enabled !== runningWrites.enabled) restartRequired.push('writes.enabled');
  if (!isDeepStrictEqual(writes, runningWrites)) sectionsChanged.push('writes');
  const config: RouterConfig = {
    ...loaded,
    http: running.http,
    budgets: running.budgets,
    cursor: running.cursor,
    logLevel: running.logLevel,
    lifecycle: running.lifecycle,
    source: running.source,
    audit: running.audit,
    discovery: running.discovery,
    rateLimitStore: running.rateLimitStore,
    trust: trust === 'applies' ? loaded.trust : running.trust,
    auth: auth === 'applies' ? loaded.auth : running.auth,
    writes,
  };
  return { config, change: { ...diffBackends(running.backends, loaded.backends), sectionsChanged, restartRequired } };
}

/**
 * API keys apply to the next request; the mode, and a JWT issuer's settings (whose key set is
 * fetched at boot), only at a restart.
 */
function planAuth(running: AuthConfig | undefined, loaded: AuthConfig | undefined): 'same' | 'applies' | 'restart' {
  if (isDeepStrictEqual(running, loaded)) return 'same';
  if (running?.mode === 'apiKeys' && loaded?.mode === 'apiKeys' && running.allowInsecure === loaded.allowInsecure) return 'applies';
  return 'restart';
}

/**
 * Between `warn` and `enforce` on the same pins file, the mode, `approveNewBackends` and
 * `relistSeconds` apply to the next review and call; turning pins on or off, or another file, takes
 * a restart (the file is read and watched from boot).
 */
function planTrust(running: TrustConfig, loaded: TrustConfig): 'same' | 'applies' | 'restart' {
  if (isDeepStrictEqual(running, loaded)) return 'same';
  const on = running.mode !== 'off' && loaded.mode !== 'off';
  return on && running.pinsFile === loaded.pinsFile ? 'applies' : 'restart';
}

function diffBackends(
  running: readonly BackendConfig[],
  loaded: readonly BackendConfig[],
): Pick<ConfigChange, 'backendsAdded' | 'backendsRemoved' | 'backendsChanged'> {
  const before = new Map(running.map((b) => [b.name, b]));
  const after = new Map(loaded.map((b) => [b.name, b]));
  return {
    backendsAdded: loaded.filter((b) => !before.has(b.name)).map((b) => b.name),
    backendsRemoved: running.filter((b) => !after.has(b.name)).map((b) => b.name),
    backendsChanged: loaded.filter((b) => before.has(b.name) && !isDeepStrictEqual(before.get(b.name), b)).map((b) => b.name),
  };
}

/** Whether a backend's new block needs a new connection: anything but its rate limit, which is the router's own. */
export function needsNewConnection(running: BackendConfig, loaded: BackendConfig): boolean {
  const { rateLimit: _a, ...before } = running;
  const { rateLimit: _b, ...after } = loaded;
  return !isDeepStrictEqual(before, after);
}

/** True when the reload changed nothing at all. */
export function isEmptyChange(change: ConfigChange): boolean {
  return Object.values(change).every((names: string[]) => names.length === 0);
}

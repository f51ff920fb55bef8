import type { BackendState } from '../../backends/backends.types';
import type { StoreStatus } from '../../rate-limit/rate-limit.store';

/** One readiness check's verdict and what an operator needs to see about it. */
export interface ReadinessEntry {
  key: string;
  ready: boolean;
  detail: Record<string, unknown>;
}

/** Keys of backend entries; the `:` keeps them apart from `catalog` and `lifecycle` (names are `[a-z][a-z0-9-]*`). */
export function backendKey(name: string): string {
  return `backend:${name}`;
}

/**
 * Readiness (architecture §2): every `required` backend connected, the catalog loaded, not draining.
 * An optional backend is listed with its state but never holds readiness back: that is what
 * `required: false` asks for. Backend error text stays in the logs, not in this open endpoint.
 */
export function readiness(
  states: readonly BackendState[],
  catalogSizes: ReadonlyMap<string, number>,
  draining: boolean,
  rateLimitStore?: StoreStatus,
): ReadinessEntry[] {
  const backends = states.map((s) => ({
    key: backendKey(s.name),
    ready: !s.required || s.status === 'up',
    detail: { state: s.status, required: s.required, transport: s.transport, restarts: s.restarts, tools: s.tools },
  }));
  const missing = states.filter((s) => s.required && !catalogSizes.has(s.name)).map((s) => s.name);
  const tools = [...catalogSizes.values()].reduce((sum, n) => sum + n, 0);
  const catalog = {
    key: 'catalog',
    ready: missing.length === 0,
    detail: missing.length === 0 ? { tools } : { tools, missing },
  };
  const lifecycle = { key: 'lifecycle', ready: !draining, detail: { draining } };
  const entries: ReadinessEntry[] = [...backends, catalog, lifecycle];
  if (rateLimitStore) entries.push(rateLimitEntry(rateLimitStore));
  return entries;
}

/**
 * The rate-limit store. Always ready: a Redis outage is handled by its failure policy
 * on every replica at once, and taking them all out of the Service would turn a degraded rate
 * limit into an outage. The detail says what calls get meanwhile.
 */
function rateLimitEntry(status: StoreStatus): ReadinessEntry {
  const { store, up, policy } = status;
  let calls: string;
  if (store === 'memory') calls = 'local';
  else if (up) calls = 'shared';
  else calls = policy?.fail === 'closed' ? 'refused (fail closed)' : `local share 1/${policy?.replicas ?? 1} (fail open)`;
  return { key: 'rateLimitStore', ready: true, detail: { store, state: up ? 'up' : 'down', calls } };
}

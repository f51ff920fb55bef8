/** Every metric name starts with this (architecture §8). */
export const METRICS_PREFIX = 'centralmcp_router_';

/**
 * The router's own prom-client `Registry`, which `GET /metrics` renders; never prom-client's
 * global one, so two routers in one process (tests) never share or clash. A module that owns
 * state registers the collectors of that state here, beside it (`backends.metrics.ts` and the
 * like), so the metrics module never reaches into the modules it describes.
 */
export const METRICS_REGISTRY = Symbol('centralmcp-router:metrics-registry');

import { Inject, Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { BackendsService } from '../backends/backends.service';
import type { BackendState } from '../backends/backends.types';
import { CALL_STATUSES, type CallStatus, type Entrypoint } from '../common/call-status';
import { BACKENDS_CONFIG } from '../config/config.tokens';
import type { BackendConfig } from '../config/config.types';
import type { CursorRejection } from '../cursor/domain/cursor-codec';
import { EMBEDDINGS_FAILURES, type EmbeddingsFailure } from '../discovery/embeddings.client';
import { EmbeddingsService } from '../discovery/embeddings.service';
import { RateLimitService } from '../rate-limit/rate-limit.service';
import { RegistryService } from '../registry/registry.service';
import { GridCounter } from './grid-counter';

/** Every metric name starts with this (architecture §8). */
export const METRICS_PREFIX = 'centralmcp_router_';

/** The label value of anything not in a closed set: a backend or bucket the config does not name. */
export const UNKNOWN_LABEL = 'none';

/** The label value of an HTTP request no route matched (a 404), never its raw URL. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The global rate-limit bucket's label value (architecture §7). */
export const GLOBAL_BUCKET = 'global';
/** The label value shared by every principal's bucket: principal ids never become labels. */
export const PRINCIPAL_BUCKET = 'principal';

/** How one batch ended: every entry ok, some entry not ok, or refused before any dispatch (architecture §5). */
export type BatchOutcome = 'ok' | 'partial' | 'rejected';

// Runtime lists of the closed unions. Written as records so that a member added to a union
// fails to compile here until it is listed (and so pre-initialised below).
const ENTRYPOINTS = keysOf({ invoke_read_tool: true, batch: true, invoke_tool: true } satisfies Record<Entrypoint, true>);
const BATCH_OUTCOMES = keysOf({ ok: true, partial: true, rejected: true } satisfies Record<BatchOutcome, true>);
const BACKEND_ERAS = keysOf({ legacy: true, modern: true } satisfies Record<NonNullable<BackendState['era']>, true>);
const CURSOR_REJECTIONS = keysOf({ malformed: true, bad_signature: true, expired: true, mismatch: true } satisfies Record<CursorRejection, true>);
/** Methods with their own label value; anything else (WebDAV verbs and the like) is `other`. */
const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** A call that reached a backend ends `ok` or `error`; only these get zeroed latency series. */
const DISPATCHED_STATUSES: readonly CallStatus[] = ['ok', 'error'];

/** Backend calls: from a fast local read to the 30 s default timeout and past it. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Rate-limit waits: up to the 10 s default `maxWaitMs`; a wait that would exceed it is a timeout. */
const WAIT_BUCKETS = [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Batch sizes are 1..25 (architecture §5): one bucket per size, so quantiles are exact. */
const BATCH_SIZE_BUCKETS = Array.from({ length: 25 }, (_, i) => i + 1);

/**
 * The router's Prometheus metrics (architecture §8) in a registry of its own, never prom-client's global
 * one, so two routers in one process (tests) never share or clash. Every label value comes from a
 * closed set: backend names from the config, the status union, fixed reasons. A name taken from a
 * request (a tool, an unknown backend) would make series unbounded, so it becomes `none`.
 */
@Injectable()
export class MetricsService {
  /** The registry /metrics renders; public so tests can count series without poking privates. */
  readonly registry = new Registry();
  private readonly backendNames: ReadonlySet<string>;
  private readonly restartsSeen = new Map<string, number>();
  private readonly embeddingFailuresSeen = new Map<EmbeddingsFailure, number>();
  private readonly storeFallbacksSeen = { local: 0, refused: 0 };
  /** The era each backend was last met in, kept while a reconnect has not settled it again. */
  private readonly erasSeen = new Map<string, NonNullable<BackendState['era']>>();

  private readonly calls: Counter<'entrypoint' | 'backend' | 'status'>;
  private readonly backendCallDuration: Histogram<'backend' | 'status'>;
  private readonly batchCalls: Histogram<string>;
  private readonly batches: Counter<'outcome'>;
  private readonly truncations: Counter<'entrypoint'>;
  private readonly cursorsIssued: Counter<string>;
  private readonly cursorRejections: Counter<'reason'>;
  private readonly rateLimitWait: Histogram<'bucket'>;
  private readonly rateLimitTimeouts: Counter<'bucket'>;
  private readonly httpRequests: Counter<'method' | 'route' | 'code'>;
  private readonly quarantinedTools: Gauge<'backend'>;
  private readonly driftEvents: Counter<'backend'>;
  private readonly httpDuration: Histogram<'method' | 'route' | 'code'>;

  constructor(
    @Inject(BACKENDS_CONFIG) configs: BackendConfig[],
    private readonly backends: BackendsService,
    catalog: RegistryService,
    private readonly embeddings: EmbeddingsService,
    rateLimits: RateLimitService,
  ) {
    this.backendNames = new Set(configs.map((c) => c.name));
    const registers = [this.registry];
    const name = (suffix: string) => METRICS_PREFIX + suffix;

    this.calls = new Counter({
      name: name('calls_total'),
      help: 'Calls by entrypoint, backend and final status; one per invoke_read_tool or invoke_tool call and per batch entry.',
      labelNames: ['entrypoint', 'backend', 'status'],
      registers,
    });
    this.backendCallDuration = new Histogram({
      name: name('backend_call_duration_seconds'),
      help: 'Duration of calls that reached a backend, by backend and status.',
      labelNames: ['backend', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.batchCalls = new Histogram({
      name: name('batch_calls'),
      help: 'Number of calls in each dispatched invoke_read_tool_batch request.',
      buckets: BATCH_SIZE_BUCKETS,
      registers,
    });
    this.batches = new Counter({
      name: name('batches_total'),
      help: 'invoke_read_tool_batch requests by outcome: ok (every entry ok), partial, rejected (refused whole).',
      labelNames: ['outcome'],
      registers,
    });
    this.truncations = new Counter({
      name: name('responses_truncated_total'),
      help: 'Answers cut to their budget, by entrypoint.',
      labelNames: ['entrypoint'],
      registers,
    });
    this.cursorsIssued = new Counter({ name: name('cursors_issued_total'), help: 'Resume cursors issued.', registers });
    this.cursorRejections = new Counter({
      name: name('cursor_rejections_total'),
      help: 'Cursors refused (invalid_cursor), by reason.',
      labelNames: ['reason'],
      registers,
    });
    this.rateLimitWait = new Histogram({
      name: name('rate_limit_wait_seconds'),
      help: 'Time calls waited for a rate-limit token, by bucket (global or a backend).',
      labelNames: ['bucket'],
      buckets: WAIT_BUCKETS,
      registers,
    });
    this.rateLimitTimeouts = new Counter({
      name: name('rate_limit_timeouts_total'),
      help: 'Calls failed because the wait for a token would exceed maxWaitMs, by bucket.',
      labelNames: ['bucket'],
      registers,
    });
    // Live state is read at scrape time, so the numbers are never stale and nothing has to push them.
    new Gauge({
      name: name('backend_up'),
      help: '1 while the backend is connected and serving calls, else 0.',
      labelNames: ['backend'],
      registers,
      collect: function (this: Gauge<'backend'>) {
        for (const state of backends.states()) this.set({ backend: state.name }, state.status === 'up' ? 1 : 0);
      },
    });
    // Info-style: 1 on the series of the era the backend was last met in (docs/backend-eras.md),
    // 0 on the other; both 0 until a first connection settles it. Read at scrape time, so a
    // backend met in another era after a reconnect shows it at the next scrape.
    const eras: Gauge<'backend' | 'era'> = new Gauge({
      name: name('backend_protocol_era'),
      help: 'The MCP era the backend was last met in: 1 on era legacy (initialize, 2025) or modern (2026-07-28), 0 on the other; both 0 until known.',
      labelNames: ['backend', 'era'],
      registers,
      collect: () => this.collectEras(eras),
    });
    // A real counter (rate() and increase() handle its reset when the process restarts): the
    // supervisor's count only ever grows, so each scrape adds what grew since the last one.
    const restarts: Counter<'backend'> = new Counter({
      name: name('backend_restarts_total'),
      help: 'Reconnect attempts of the backend since the router started (a stdio respawn counts one).',
      labelNames: ['backend'],
      registers,
      collect: () => this.collectRestarts(restarts),
    });
    new Gauge({
      name: name('catalog_tools'),
      help: 'Tools in the catalog per backend (the last catalog it delivered, kept while it is down).',
      labelNames: ['backend'],
      registers,
      collect: function (this: Gauge<'backend'>) {
        const sizes = catalog.sizes();
        for (const backend of configs) this.set({ backend: backend.name }, sizes.get(backend.name) ?? 0);
      },
    });
    // Only with an embeddings endpoint configured: series of a feature that is off are noise.
    if (embeddings.enabled) {
      const failures: Counter<'reason'> = new Counter({
        name: name('embeddings_failures_total'),
        help: 'Embeddings endpoint answers not used (find_tool then answers from the lexical ranking), by reason: timeout, http_error, unreachable, invalid_response, dimension.',
        labelNames: ['reason'],
        registers,
        collect: () => this.collectEmbeddingFailures(failures),
      });
      for (const reason of EMBEDDINGS_FAILURES) failures.inc({ reason }, 0);
      new Gauge({
        name: name('embeddings_tools'),
        help: 'Catalog tools with an embedding (dense ranking covers these; the rest rank lexically).',
        registers,
        collect: function (this: Gauge) {
          this.set(embeddings.stats().embeddedTools);
        },
      });
    }
    // Issue 15: whether the rate-limit store answers (the memory store always does), and what
    // happened to the calls decided without it. Read at scrape time, like backend_up.
    new Gauge({
      name: name('rate_limit_store_up'),
      help: '1 while the rate-limit store answers (memory: always); 0 while Redis is unreachable and the failure policy decides.',
      labelNames: ['store'],
      registers,
      collect: function (this: Gauge<'store'>) {
        const status = rateLimits.storeStatus();
        this.set({ store: status.store }, status.up ? 1 : 0);
      },
    });
    const storeFallbacks: Counter<'outcome'> = new Counter({
      name: name('rate_limit_store_fallbacks_total'),
      help: 'Calls decided without the shared rate-limit store: local (fail open, the replica share) or refused (fail closed).',
      labelNames: ['outcome'],
      registers,
      collect: () => this.collectStoreFallbacks(storeFallbacks, rateLimits),
    });
    storeFallbacks.inc({ outcome: 'local' }, 0);
    storeFallbacks.inc({ outcome: 'refused' }, 0);
    this.httpRequests = new Counter({
      name: name('http_requests_total'),
      help: 'HTTP requests by method, route pattern (unmatched for 404s) and status code.',
      labelNames: ['method', 'route', 'code'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: name('http_request_duration_seconds'),
      help: 'HTTP request duration by method, route pattern and status code.',
      labelNames: ['method', 'route', 'code'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    // Issue 14: pushed by the trust pins on every catalog review; no series while trust is off.
    this.quarantinedTools = new Gauge({
      name: name('quarantined_tools'),
      help: 'Tools whose definition has no approved pin or differs from it, per backend (trust mode enforce: hidden and blocked; warn: only marked).',
      labelNames: ['backend'],
      registers,
    });
    this.driftEvents = new Counter({
      name: name('tool_drift_events_total'),
      help: 'Tool definitions seen changed from their approved pin, per backend (each new definition counts once).',
      labelNames: ['backend'],
      registers,
    });
    collectDefaultMetrics({ register: this.registry, prefix: METRICS_PREFIX });
    dropTotalGauges(this.registry);
    this.zeroSeries(configs, restarts);
  }

  /** The Content-Type of `render()`'s text (Prometheus text exposition format 0.0.4). */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The text exposition of every metric, gauges read live. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /**
   * `mcp_requests_total`: JSON-RPC messages at /mcp by the protocol version they claim and their
   * method. The label lists are the endpoint's own closed sets (mcp/ owns the versions it lists and
   * the methods it serves), handed over once at boot; each message is then one array increment
   * at two indices, so counting costs a request nanoseconds and no allocation.
   */
  countMcpRequests(versions: readonly string[], methods: readonly string[]): GridCounter<'version', 'method'> {
    return new GridCounter({
      name: METRICS_PREFIX + 'mcp_requests_total',
      help: 'JSON-RPC requests and notifications at /mcp once admitted, by the protocol version they claim (a listed version, unsupported or none) and method (a served one, or other); refusals included.',
      labelNames: ['version', 'method'],
      rows: versions,
      columns: methods,
      registers: [this.registry],
    });
  }

  /** The number of tools of `backend` failing their pin, after a review of its catalog. */
  setQuarantinedTools(backend: string, count: number): void {
    this.quarantinedTools.set({ backend: this.backendLabel(backend) }, count);
  }

  /** A tool of `backend` seen with a definition that differs from its approved pin. */
  recordDrift(backend: string, count = 1): void {
    this.driftEvents.inc({ backend: this.backendLabel(backend) }, count);
  }

  /** One read call's final status; a backend the config does not name is counted as `none`. */
  recordCall(entrypoint: Entrypoint, backend: string, status: CallStatus): void {
    this.calls.inc({ entrypoint, backend: this.backendLabel(backend), status });
  }

  /** Latency of one call that reached a backend. */
  observeBackendCall(backend: string, status: CallStatus, seconds: number): void {
    this.backendCallDuration.observe({ backend: this.backendLabel(backend), status }, seconds);
  }

  /**
   * One batch request. Its size is observed only when it was dispatched: a rejected batch's
   * "size" may be 0 or thousands, which would only distort the distribution of real batches.
   */
  recordBatch(size: number, outcome: BatchOutcome): void {
    this.batches.inc({ outcome });
    if (outcome !== 'rejected') this.batchCalls.observe(size);
  }

  recordTruncation(entrypoint: Entrypoint): void {
    this.truncations.inc({ entrypoint });
  }

  recordCursorIssued(): void {
    this.cursorsIssued.inc();
  }

  recordCursorRejected(reason: CursorRejection): void {
    this.cursorRejections.inc({ reason });
  }

  /** Time one call waited for a token of `bucket` (`global` or a backend name), 0 when it did not. */
  observeRateLimitWait(bucket: string, seconds: number): void {
    this.rateLimitWait.observe({ bucket: this.bucketLabel(bucket) }, seconds);
  }

  recordRateLimitTimeout(bucket: string): void {
    this.rateLimitTimeouts.inc({ bucket: this.bucketLabel(bucket) });
  }

  /**
   * One HTTP request. `route` is the matched route pattern (e.g. `/mcp`), undefined when none
   * matched; the raw URL never becomes a label, or every scanner's probe would be a series.
   */
  observeHttpRequest(method: string, route: string | undefined, statusCode: number, seconds: number): void {
    const labels = {
      method: HTTP_METHODS.has(method) ? method : 'other',
      route: route ?? UNMATCHED_ROUTE,
      code: String(statusCode),
    };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  private backendLabel(backend: string): string {
    return this.backendNames.has(backend) ? backend : UNKNOWN_LABEL;
  }

  private bucketLabel(bucket: string): string {
    return bucket === GLOBAL_BUCKET || bucket === PRINCIPAL_BUCKET || this.backendNames.has(bucket) ? bucket : UNKNOWN_LABEL;
  }

  private collectRestarts(restarts: Counter<'backend'>): void {
    for (const state of this.backends.states()) {
      const seen = this.restartsSeen.get(state.name) ?? 0;
      if (state.restarts > seen) restarts.inc({ backend: state.name }, state.restarts - seen);
      this.restartsSeen.set(state.name, Math.max(seen, state.restarts));
    }
  }

  private collectEras(gauge: Gauge<'backend' | 'era'>): void {
    for (const state of this.backends.states()) {
      if (state.era !== undefined) this.erasSeen.set(state.name, state.era);
      const current = this.erasSeen.get(state.name);
      for (const era of BACKEND_ERAS) gauge.set({ backend: state.name, era }, era === current ? 1 : 0);
    }
  }

  /** Like restarts: the service counts, each scrape adds what grew since the last one. */
  private collectEmbeddingFailures(failures: Counter<'reason'>): void {
    for (const [reason, count] of this.embeddings.stats().failures) {
      const seen = this.embeddingFailuresSeen.get(reason) ?? 0;
      if (count > seen) failures.inc({ reason }, count - seen);
      this.embeddingFailuresSeen.set(reason, Math.max(seen, count));
    }
  }

  private collectStoreFallbacks(counter: Counter<'outcome'>, rateLimits: RateLimitService): void {
    const { fallbacks } = rateLimits.storeStatus();
    for (const outcome of ['local', 'refused'] as const) {
      const grown = fallbacks[outcome] - this.storeFallbacksSeen[outcome];
      if (grown > 0) counter.inc({ outcome }, grown);
      this.storeFallbacksSeen[outcome] = Math.max(this.storeFallbacksSeen[outcome], fallbacks[outcome]);
    }
  }

  /**
   * Creates the status-labelled series at 0, so `rate()` and `increase()` see the first event
   * instead of a series that appears out of nowhere. Bounded: (backends + 1) × 7 statuses × 3
   * entrypoints for calls; the per-bucket series only for buckets that exist.
   */
  private zeroSeries(configs: readonly BackendConfig[], restarts: Counter<'backend'>): void {
    const backendLabels = [...configs.map((c) => c.name), UNKNOWN_LABEL];
    for (const entrypoint of ENTRYPOINTS) {
      this.truncations.inc({ entrypoint }, 0);
      for (const backend of backendLabels) {
        for (const status of CALL_STATUSES) this.calls.inc({ entrypoint, backend, status }, 0);
      }
    }
    for (const backend of configs) {
      restarts.inc({ backend: backend.name }, 0);
      for (const status of DISPATCHED_STATUSES) this.backendCallDuration.zero({ backend: backend.name, status });
    }
    for (const outcome of BATCH_OUTCOMES) this.batches.inc({ outcome }, 0);
    for (const reason of CURSOR_REJECTIONS) this.cursorRejections.inc({ reason }, 0);
    // The global bucket may or may not be configured; a zero series for it costs nothing. A
    // backend has a bucket only when it sets its own rateLimit.
    const buckets = [GLOBAL_BUCKET, ...configs.filter((c) => c.rateLimit !== undefined).map((c) => c.name)];
    for (const bucket of buckets) {
      this.rateLimitTimeouts.inc({ bucket }, 0);
      this.rateLimitWait.zero({ bucket });
    }
  }
}

function keysOf<K extends string>(record: Record<K, true>): K[] {
  return Object.keys(record) as K[];
}

/**
 * prom-client publishes the totals of its `nodejs_active_handles` / `_requests` / `_resources`
 * gauges (labelled by type) also as `…_total` gauges, which `promtool check metrics` refuses
 * (`_total` is for counters). The labelled gauges carry the same numbers (sum by type), so the
 * totals go, and the whole exposition lints clean (issue 12).
 */
function dropTotalGauges(registry: Registry): void {
  for (const kind of ['handles', 'requests', 'resources']) registry.removeSingleMetric(`${METRICS_PREFIX}nodejs_active_${kind}_total`);
}

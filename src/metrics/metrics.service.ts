import { Inject, Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { CALL_STATUSES, type CallStatus, type Entrypoint } from '../common/call-status';
import { ConfigService } from '../config/config.service';
import { BACKENDS_CONFIG } from '../config/config.tokens';
import type { BackendConfig } from '../config/config.types';
import type { CursorRejection } from '../cursor/domain/cursor-codec';
import { GridCounter } from './grid-counter';
import { labelValues } from './label-values';
import { METRICS_PREFIX, METRICS_REGISTRY } from './metrics.tokens';

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

// Runtime lists of the closed unions, so each series is created at 0 below.
const ENTRYPOINTS = labelValues<Entrypoint>({ invoke_read_tool: true, batch: true, invoke_tool: true, read_resource: true, get_prompt: true });
const BATCH_OUTCOMES = labelValues<BatchOutcome>({ ok: true, partial: true, rejected: true });
const CURSOR_REJECTION_REASONS = labelValues<CursorRejection>({ malformed: true, bad_signature: true, expired: true, mismatch: true });
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
 * How often the event-loop delay histogram (`nodejs_eventloop_lag_*`) samples the loop, in ms.
 * prom-client's 10 wakes an idle router 100 times a second, about 0.7% of a core on a VM where
 * each wake-up costs system calls (BENCHMARKS.md, "Fewer system calls per stdio call"); every
 * 100 ms still gives a 15 s scrape 150 samples.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

const name = (suffix: string) => METRICS_PREFIX + suffix;

// What the dispatch seam, the HTTP hook and the trust pins push. Live state (backends, catalog,
// embeddings, the rate-limit store) is read at scrape time by collectors its own module registers.
const CALLS = {
  name: name('calls_total'),
  help: 'Calls by entrypoint, backend and final status; one per invoke_read_tool or invoke_tool call and per batch entry.',
  labelNames: ['entrypoint', 'backend', 'status'],
} as const;
const BACKEND_CALL_DURATION = {
  name: name('backend_call_duration_seconds'),
  help: 'Duration of calls that reached a backend, by backend and status.',
  labelNames: ['backend', 'status'],
  buckets: LATENCY_BUCKETS,
} as const;
const BATCH_CALLS = {
  name: name('batch_calls'),
  help: 'Number of calls in each dispatched invoke_read_tool_batch request.',
  buckets: BATCH_SIZE_BUCKETS,
} as const;
const BATCHES = {
  name: name('batches_total'),
  help: 'invoke_read_tool_batch requests by outcome: ok (every entry ok), partial, rejected (refused whole).',
  labelNames: ['outcome'],
} as const;
const TRUNCATIONS = { name: name('responses_truncated_total'), help: 'Answers cut to their budget, by entrypoint.', labelNames: ['entrypoint'] } as const;
const CURSORS_ISSUED = { name: name('cursors_issued_total'), help: 'Resume cursors issued.' } as const;
const CURSOR_REJECTIONS = {
  name: name('cursor_rejections_total'),
  help: 'Cursors refused (invalid_cursor), by reason.',
  labelNames: ['reason'],
} as const;
const RATE_LIMIT_WAIT = {
  name: name('rate_limit_wait_seconds'),
  help: 'Time calls waited for a rate-limit token, by bucket (global or a backend).',
  labelNames: ['bucket'],
  buckets: WAIT_BUCKETS,
} as const;
const RATE_LIMIT_TIMEOUTS = {
  name: name('rate_limit_timeouts_total'),
  help: 'Calls failed because the wait for a token would exceed maxWaitMs, by bucket.',
  labelNames: ['bucket'],
} as const;
const HTTP_REQUESTS = {
  name: name('http_requests_total'),
  help: 'HTTP requests by method, route pattern (unmatched for 404s) and status code.',
  labelNames: ['method', 'route', 'code'],
} as const;
const HTTP_DURATION = {
  name: name('http_request_duration_seconds'),
  help: 'HTTP request duration by method, route pattern and status code.',
  labelNames: ['method', 'route', 'code'],
  buckets: LATENCY_BUCKETS,
} as const;
// Pushed by the trust pins on every catalog review; no series while trust is off.
const QUARANTINED_TOOLS = {
  name: name('quarantined_tools'),
  help: 'Tools whose definition has no approved pin or differs from it, per backend (trust mode enforce: hidden and blocked; warn: only marked).',
  labelNames: ['backend'],
} as const;
const DRIFT_EVENTS = {
  name: name('tool_drift_events_total'),
  help: 'Tool definitions seen changed from their approved pin, per backend (each new definition counts once).',
  labelNames: ['backend'],
} as const;

/**
 * The router's Prometheus metrics (architecture §8): the registry `GET /metrics` renders and the
 * series the dispatch seam records into. Every label value comes from a closed set: backend names
 * from the config, the status union, fixed reasons. A name taken from a request (a tool, an unknown
 * backend) would make series unbounded, so it becomes `none`. A backend added by a reload gets its
 * series; one removed keeps them (its counts stay readable), so the set only grows with the config.
 */
@Injectable()
export class MetricsService {
  private readonly backendNames = new Set<string>();
  private readonly calls: Counter<'entrypoint' | 'backend' | 'status'>;
  private readonly backendCallDuration: Histogram<'backend' | 'status'>;
  private readonly batchCalls: Histogram;
  private readonly batches: Counter<'outcome'>;
  private readonly truncations: Counter<'entrypoint'>;
  private readonly cursorsIssued: Counter;
  private readonly cursorRejections: Counter<'reason'>;
  private readonly rateLimitWait: Histogram<'bucket'>;
  private readonly rateLimitTimeouts: Counter<'bucket'>;
  private readonly httpRequests: Counter<'method' | 'route' | 'code'>;
  private readonly httpDuration: Histogram<'method' | 'route' | 'code'>;
  private readonly quarantinedTools: Gauge<'backend'>;
  private readonly driftEvents: Counter<'backend'>;

  constructor(
    /** The registry /metrics renders; public so tests can count series without poking privates. */
    @Inject(METRICS_REGISTRY) readonly registry: Registry,
    @Inject(BACKENDS_CONFIG) configs: BackendConfig[],
    runningConfig: ConfigService,
  ) {
    const registers = [registry];
    this.calls = new Counter({ ...CALLS, registers });
    this.backendCallDuration = new Histogram({ ...BACKEND_CALL_DURATION, registers });
    this.batchCalls = new Histogram({ ...BATCH_CALLS, registers });
    this.batches = new Counter({ ...BATCHES, registers });
    this.truncations = new Counter({ ...TRUNCATIONS, registers });
    this.cursorsIssued = new Counter({ ...CURSORS_ISSUED, registers });
    this.cursorRejections = new Counter({ ...CURSOR_REJECTIONS, registers });
    this.rateLimitWait = new Histogram({ ...RATE_LIMIT_WAIT, registers });
    this.rateLimitTimeouts = new Counter({ ...RATE_LIMIT_TIMEOUTS, registers });
    this.httpRequests = new Counter({ ...HTTP_REQUESTS, registers });
    this.httpDuration = new Histogram({ ...HTTP_DURATION, registers });
    this.quarantinedTools = new Gauge({ ...QUARANTINED_TOOLS, registers });
    this.driftEvents = new Counter({ ...DRIFT_EVENTS, registers });
    collectDefaultMetrics({ register: registry, prefix: METRICS_PREFIX, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    dropTotalGauges(registry);
    this.addBackends(configs);
    runningConfig.onReload((next) => this.addBackends(next.backends));
  }

  private addBackends(configs: readonly BackendConfig[]): void {
    const added = configs.filter((c) => !this.backendNames.has(c.name));
    for (const c of added) this.backendNames.add(c.name);
    this.zeroSeries(added);
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

  /**
   * Creates the status-labelled series at 0, so `rate()` and `increase()` see the first event
   * instead of a series that appears out of nowhere. Bounded: (backends + 1) × 7 statuses × 3
   * entrypoints for calls; the per-bucket series only for buckets that exist.
   */
  private zeroSeries(configs: readonly BackendConfig[]): void {
    const backendLabels = [...configs.map((c) => c.name), UNKNOWN_LABEL];
    for (const entrypoint of ENTRYPOINTS) {
      this.truncations.inc({ entrypoint }, 0);
      for (const backend of backendLabels) {
        for (const status of CALL_STATUSES) this.calls.inc({ entrypoint, backend, status }, 0);
      }
    }
    for (const backend of configs) {
      for (const status of DISPATCHED_STATUSES) this.backendCallDuration.zero({ backend: backend.name, status });
    }
    for (const outcome of BATCH_OUTCOMES) this.batches.inc({ outcome }, 0);
    for (const reason of CURSOR_REJECTION_REASONS) this.cursorRejections.inc({ reason }, 0);
    // The global bucket may or may not be configured; a zero series for it costs nothing. A
    // backend has a bucket only when it sets its own rateLimit.
    const buckets = [GLOBAL_BUCKET, ...configs.filter((c) => c.rateLimit !== undefined).map((c) => c.name)];
    for (const bucket of buckets) {
      this.rateLimitTimeouts.inc({ bucket }, 0);
      this.rateLimitWait.zero({ bucket });
    }
  }
}

/**
 * prom-client publishes the totals of its `nodejs_active_handles` / `_requests` / `_resources`
 * gauges (labelled by type) also as `…_total` gauges, which `promtool check metrics` refuses
 * (`_total` is for counters). The labelled gauges carry the same numbers (sum by type), so the
 * totals go, and the whole exposition lints clean.
 */
function dropTotalGauges(registry: Registry): void {
  for (const kind of ['handles', 'requests', 'resources']) registry.removeSingleMetric(`${METRICS_PREFIX}nodejs_active_${kind}_total`);
}

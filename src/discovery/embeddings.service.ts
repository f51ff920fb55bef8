import { Inject, Injectable, Logger, Optional, type OnModuleDestroy } from '@nestjs/common';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { messageOf } from '../common/thrown';
import { DISCOVERY_CONFIG } from '../config/config.tokens';
import type { DiscoveryConfig, EmbeddingsConfig } from '../config/config.types';
import { nearest } from './domain/dense-ranking';
import { embeddingKey, embeddingText } from './domain/embedding-text';
import { LruCache, ToolVectorStore, type ToolText } from './domain/vector-cache';
import { EmbeddingsClient, EMBEDDINGS_FAILURES, type EmbeddingsFailure } from './embeddings.client';
import type { CatalogTool } from '../registry/registry.types';

/** Query vectors kept: agents repeat queries, and a cached one costs no request. */
const QUERY_CACHE_ENTRIES = 1024;
/** Vectors of texts no catalog tool uses any more, kept for a tool that comes back. */
const RETIRED_VECTORS = 2048;
/** After a failed batch of tool texts, the next try waits this long, doubling up to the maximum. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 60_000;
/** One warning per failure reason per this long; the failures in between are counted in it. */
const WARN_INTERVAL_MS = 60_000;
/** Tools hashed between two yields to the event loop while a refreshed catalog is read. */
const HASH_SLICE = 500;
/**
 * HTTP statuses that refuse what was sent rather than the caller (bad input, too large): a batch
 * refused so is split, down to single texts, and a single text refused so is not sent again.
 */
const REFUSED_INPUT = new Set([400, 413, 422]);
/**
 * Single texts refused in a row before the refusal is taken for the endpoint's (a wrong model
 * name answers 400 on some servers): they are tried again later, with the retry delay.
 */
const REFUSALS_IN_A_ROW = 3;
const MAX_REFUSED = 10_000;

/** What the embeddings path has done, for metrics. */
export interface EmbeddingsStats {
  /** False when no endpoint is configured. */
  enabled: boolean;
  /** Failures since start, by reason. */
  failures: ReadonlyMap<EmbeddingsFailure, number>;
  /** Catalog tools whose text has a vector. */
  embeddedTools: number;
}

/**
 * `find_tool`'s dense ranking through an OpenAI-compatible embeddings endpoint (optional:
 * inert without `discovery.embeddings`).
 *
 * Tool texts are embedded in the background after each catalog refresh, in batches, each text
 * once ({@link ToolVectorStore}: keyed by the SHA-256 of the text, shared across backends and
 * refreshes); a refresh only hands over the new tool list, so it is never slowed or failed by
 * the endpoint. A failed batch is tried again later (1 s, doubling to 60 s). A query is embedded
 * when it is searched, within `timeoutMs`, and its vector kept in an LRU.
 *
 * The endpoint is never trusted to be there: every failure (error, timeout, garbage, a vector of
 * another length) makes {@link rank} answer undefined at once, so `find_tool` answers from its
 * lexical ranking; it is counted, and logged at most once a minute per reason, without the query
 * or the headers. Readiness never waits for it. A vector of another length than the catalog's
 * means the model changed: the catalog is embedded again.
 */
@Injectable()
export class EmbeddingsService implements OnModuleDestroy {
  private readonly logger = new Logger(EmbeddingsService.name);
  private readonly config?: EmbeddingsConfig;
  private readonly client?: EmbeddingsClient;
  private readonly tools = new ToolVectorStore(RETIRED_VECTORS);
  private readonly queries = new LruCache<string, Float32Array>(QUERY_CACHE_ENTRIES);
  private readonly queriesInFlight = new Map<string, Promise<Float32Array | undefined>>();
  /** Catalogs handed over by refreshes and not yet read, by backend (the latest wins). */
  private readonly pendingCatalogs = new Map<string, readonly CatalogTool[]>();
  private readonly failures = new Map<EmbeddingsFailure, number>(EMBEDDINGS_FAILURES.map((r) => [r, 0]));
  private readonly warnings = new Map<EmbeddingsFailure, { atMs: number; suppressed: number }>();
  private readonly shutdown = new AbortController();
  private pumping = false;
  /** Texts the endpoint refused on their own (keys); they rank lexically only. */
  private readonly refused = new Set<string>();
  /** Texts refused alone since the last success. */
  private refusedInARow: string[] = [];
  /** Texts per request now: the configured size, smaller while batches are refused. */
  private batchLimit = 1;
  private retryTimer?: NodeJS.Timeout;
  private retryDelayMs = RETRY_FIRST_MS;

  /** Without a discovery config (the search used on its own) there is no endpoint: lexical only. */
  constructor(@Optional() @Inject(DISCOVERY_CONFIG) discovery?: DiscoveryConfig) {
    this.config = discovery?.embeddings;
    if (this.config !== undefined) this.client = new EmbeddingsClient(this.config);
    this.batchLimit = this.config?.batchSize ?? 1;
  }

  /** True when an endpoint is configured. */
  get enabled(): boolean {
    return this.client !== undefined;
  }

  /**
   * A backend's new tool list. Synchronous and cheap (the list is kept, read later), and never
   * throws: a refresh must not wait for or fail on the endpoint.
   */
  catalogChanged(backend: string, tools: readonly CatalogTool[]): void {
    if (!this.enabled || this.shutdown.signal.aborted) return;
    this.pendingCatalogs.set(backend, tools);
    this.schedule();
  }

  /**
   * The embedding of `query` (trimmed), from the cache or the endpoint within `timeoutMs`;
   * undefined when there is nothing to rank against yet (no tool vector), the query is blank, or
   * the endpoint failed (counted and logged). Never throws.
   */
  async queryVector(query: string): Promise<Float32Array | undefined> {
    const client = this.client;
    const text = query.trim();
    if (client === undefined || text === '' || this.tools.dimension === undefined) return undefined;
    const cached = this.queries.get(text);
    if (cached !== undefined) return cached;
    // Concurrent searches for one new query share its request.
    let pending = this.queriesInFlight.get(text);
    if (pending === undefined) {
      pending = this.embedQuery(client, text).finally(() => this.queriesInFlight.delete(text));
      this.queriesInFlight.set(text, pending);
    }
    const vector = await pending;
    if (vector === undefined) return undefined;
    if (vector.length !== this.tools.dimension) {
      if (this.tools.dimension !== undefined) this.dimensionChanged('query', this.tools.dimension, vector.length);
      return undefined;
    }
    return vector;
  }

  /**
   * The `depth` candidates `visible` admits nearest to `queryVector`, nearest first; candidates
   * whose text has no vector yet are left out. Synchronous, so it reads one state of the catalog.
   */
  rank(queryVector: Float32Array, candidates: Iterable<CatalogTool>, depth: number, visible?: (tool: CatalogTool) => boolean): CatalogTool[] {
    return nearest(queryVector, candidates, (tool) => this.tools.vectorOf(tool.backend, tool.name), depth, visible);
  }

  /** Counters and coverage, read by metrics at scrape time. */
  stats(): EmbeddingsStats {
    return { enabled: this.enabled, failures: this.failures, embeddedTools: this.enabled ? this.tools.embeddedTools() : 0 };
  }

  onModuleDestroy(): void {
    this.shutdown.abort();
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  private async embedQuery(client: EmbeddingsClient, text: string): Promise<Float32Array | undefined> {
    const answer = await client.embed([text], this.config!.timeoutMs, this.shutdown.signal);
    if (!answer.ok) {
      // A request cut short by shutdown is not the endpoint's failure.
      if (!this.shutdown.signal.aborted) this.fail(answer.reason, 'query', answer.httpStatus);
      return undefined;
    }
    const [vector] = answer.vectors;
    // Only a vector the catalog's can be compared with is cached; another length is handled by the caller.
    if (vector.length === this.tools.dimension) this.queries.set(text, vector);
    return vector;
  }

  /** Runs the background embedding soon, unless it runs already or waits to retry. */
  private schedule(): void {
    if (this.pumping || this.retryTimer !== undefined || this.shutdown.signal.aborted) return;
    this.pumping = true;
    setImmediate(() => void this.pump());
  }

  /** Reads the pending catalogs, then embeds every text that has no vector, batch by batch. */
  private async pump(): Promise<void> {
    const client = this.client!;
    const { batchSize, batchTimeoutMs } = this.config!;
    try {
      for (;;) {
        await this.readPendingCatalogs();
        if (this.shutdown.signal.aborted) return;
        const batch = this.tools.missing(this.batchLimit, (key) => this.refused.has(key));
        if (batch.length === 0) return;
        const answer = await client.embed(
          batch.map((b) => b.text),
          batchTimeoutMs,
          this.shutdown.signal,
        );
        if (this.shutdown.signal.aborted) return;
        if (!answer.ok) {
          this.fail(answer.reason, 'refresh', answer.httpStatus);
          // One text the endpoint cannot take (too long for its model, say) must not keep every
          // other tool from being embedded: split the batch until that text is alone, then skip it.
          if (answer.httpStatus !== undefined && REFUSED_INPUT.has(answer.httpStatus) && this.refusedInARow.length < REFUSALS_IN_A_ROW - 1) {
            if (batch.length === 1) {
              // Bounded: a catalog that churns through refused texts forgets them and tries again.
              if (this.refused.size >= MAX_REFUSED) this.refused.clear();
              this.refused.add(batch[0].key);
              this.refusedInARow.push(batch[0].key);
            }
            this.batchLimit = Math.max(1, Math.floor(batch.length / 2));
            continue;
          }
          for (const key of this.refusedInARow) this.refused.delete(key);
          this.refusedInARow = [];
          this.retryLater();
          return;
        }
        this.refusedInARow = [];
        this.retryDelayMs = RETRY_FIRST_MS;
        this.batchLimit = Math.min(batchSize, this.batchLimit * 2);
        const before = this.tools.dimension;
        let reset = false;
        batch.forEach((b, i) => (reset = this.tools.put(b.key, answer.vectors[i]) || reset));
        if (reset && before !== undefined) this.dimensionChanged('refresh', before, answer.vectors[0].length);
      }
    } catch (err) {
      // A bug here must not take the router down: dense ranking stops, find_tool stays lexical.
      this.logger.error({ msg: 'embedding the catalog failed', error: messageOf(err) });
    } finally {
      this.pumping = false;
      if (this.pendingCatalogs.size > 0 && this.retryTimer === undefined) this.schedule();
    }
  }

  private async readPendingCatalogs(): Promise<void> {
    // Always the oldest list first: one set again while hashing moved to the end of the queue.
    for (let next = this.pendingCatalogs.entries().next(); !next.done; next = this.pendingCatalogs.entries().next()) {
      const [backend, tools] = next.value;
      this.pendingCatalogs.delete(backend);
      const texts: ToolText[] = [];
      for (let i = 0; i < tools.length; i += 1) {
        const text = embeddingText(tools[i]);
        texts.push({ name: tools[i].name, key: embeddingKey(text), text });
        if ((i + 1) % HASH_SLICE === 0) await yieldToEventLoop();
      }
      // A newer list for this backend arrived while hashing: it is the one to keep.
      if (!this.pendingCatalogs.has(backend)) this.tools.setBackend(backend, texts);
    }
  }

  private retryLater(): void {
    const delay = this.retryDelayMs;
    this.retryDelayMs = Math.min(RETRY_MAX_MS, this.retryDelayMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.schedule();
    }, delay);
    this.retryTimer.unref();
  }

  /** The endpoint's vectors changed length: drop the catalog's and the queries' vectors, embed again. */
  private dimensionChanged(during: 'query' | 'refresh', from: number, to: number): void {
    this.fail('dimension', during, undefined, { from, to });
    if (during === 'query') this.tools.reset();
    // Another model may take what the last one refused.
    this.refused.clear();
    this.queries.clear();
    this.schedule();
  }

  private fail(reason: EmbeddingsFailure, during: 'query' | 'refresh', httpStatus?: number, dimensions?: { from: number; to: number }): void {
    this.failures.set(reason, (this.failures.get(reason) ?? 0) + 1);
    const now = Date.now();
    const last = this.warnings.get(reason);
    if (last !== undefined && now - last.atMs < WARN_INTERVAL_MS) {
      last.suppressed += 1;
      return;
    }
    this.warnings.set(reason, { atMs: now, suppressed: 0 });
    // Never the query, the texts, the URL or the headers: they may hold what callers typed or secrets.
    this.logger.warn({
      msg:
        during === 'query'
          ? 'embeddings endpoint failed: find_tool answers from the lexical ranking'
          : 'embeddings endpoint failed: tools not embedded yet rank lexically only',
      reason,
      during,
      ...(httpStatus !== undefined ? { httpStatus } : {}),
      ...(dimensions !== undefined ? { dimensions } : {}),
      ...(last !== undefined ? { failuresSinceLastWarning: last.suppressed } : {}),
    });
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { DEFAULT_MAX_WAIT_MS } from '../config/config.defaults';
import { ConfigService } from '../config/config.service';
import { BACKENDS_CONFIG, RATE_LIMIT_CONFIG } from '../config/config.tokens';
import type { BackendConfig, RateLimitConfig, RateLimitSettings } from '../config/config.types';
import type { BucketParams } from './domain/token-bucket';
import { RATE_LIMIT_STORE, type RateLimitStore, type StoreStatus } from './rate-limit.store';
import { SLEEP, type Sleep } from './rate-limit.tokens';

/** Which bucket waited or refused; doubles as a metrics label. */
export type RateLimitBucket = 'global' | 'principal' | 'backend';

export interface RateLimitWait {
  bucket: RateLimitBucket;
  waitMs: number;
}

/**
 * Granted: the call may proceed now; `waitedMs` is how long it was held (the longest of `waits`,
 * one entry per bucket consulted, zeros included so metrics see every decision). Refused: the
 * named bucket would have needed `neededMs` of waiting, over its `maxWaitMs`; or the shared store
 * could not answer and its failure policy is `closed`. A refused call took no token from any bucket.
 */
export type RateLimitOutcome =
  | { ok: true; waitedMs: number; waits: readonly RateLimitWait[] }
  | { ok: false; reason: 'wait_too_long'; bucket: RateLimitBucket; neededMs: number; maxWaitMs: number }
  | { ok: false; reason: 'store_unavailable' };

/** Every call costs one token, whatever its size. */
const COST = 1;

interface Limit {
  bucket: RateLimitBucket;
  key: string;
  params: BucketParams;
  maxWaitMs: number;
}

/** Shared by every unlimited call: the hot path allocates nothing of its own. */
const UNLIMITED: RateLimitOutcome = Object.freeze({ ok: true, waitedMs: 0, waits: Object.freeze([]) });

/**
 * The router's token buckets (architecture §7): one global, one per principal and one per
 * backend, each only where configured. Where none applies, `acquire` resolves at once. A reload
 * sets new rates for the calls after it; the buckets live in the store by key, so one that still
 * exists keeps its tokens.
 */
@Injectable()
export class RateLimitService {
  private global: Limit | undefined;
  private perPrincipal: Omit<Limit, 'key'> | undefined;
  private perBackend = new Map<string, Limit>();

  constructor(
    @Inject(RATE_LIMIT_CONFIG) config: RateLimitConfig,
    @Inject(BACKENDS_CONFIG) backends: BackendConfig[],
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(SLEEP) private readonly sleep: Sleep,
    configs: ConfigService,
  ) {
    this.configure(config, backends);
    configs.onReload((next) => this.configure(next, next.backends));
  }

  private configure(config: RateLimitConfig, backends: readonly BackendConfig[]): void {
    const defaultWait = config.rateLimit?.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    this.global = config.rateLimit && limitOf('global', 'global', config.rateLimit, defaultWait);
    const principal = config.principalRateLimit;
    this.perPrincipal = principal && limitOf('principal', '', principal, principal.maxWaitMs ?? defaultWait);
    const perBackend = new Map<string, Limit>();
    for (const backend of backends) {
      if (!backend.rateLimit) continue;
      // Backend names cannot contain ':', so no backend key collides with the global one.
      const maxWaitMs = backend.rateLimit.maxWaitMs ?? defaultWait;
      perBackend.set(backend.name, limitOf('backend', `backend:${backend.name}`, backend.rateLimit, maxWaitMs));
    }
    this.perBackend = perBackend;
  }

  /**
   * Takes one token from each bucket that applies (global, the principal's, the backend's), all
   * at once in the store or none, waiting for them if needed. Resolves once the call may go to
   * the backend, or at once with `ok: false` when a wait would exceed that bucket's `maxWaitMs`
   * (or the shared store is away and fails closed). Never rejects: the store decides every call.
   *
   * Call it only after every local refusal (unknown tool, blocked, invalid call, invalid cursor):
   * those never reach a backend and so cost no token.
   */
  /** True when no bucket applies to this call: `acquire` would resolve at once, with no wait. */
  unlimited(backend: string, principal?: string): boolean {
    return this.global === undefined && (this.perPrincipal === undefined || principal === undefined) && !this.perBackend.has(backend);
  }

  async acquire(backend: string, principal?: string): Promise<RateLimitOutcome> {
    const limits: Limit[] = [];
    if (this.global) limits.push(this.global);
    // Principal ids are free text; the prefix keeps their keys apart from every other bucket's.
    if (this.perPrincipal && principal !== undefined) limits.push({ ...this.perPrincipal, key: `principal:${principal}` });
    const own = this.perBackend.get(backend);
    if (own) limits.push(own);
    if (limits.length === 0) return UNLIMITED;
    const reservation = await this.store.reserveAll(limits, COST);
    if (!reservation.ok) {
      if (reservation.reason === 'store_unavailable') return reservation;
      const limit = limits[reservation.index];
      return { ok: false, reason: 'wait_too_long', bucket: limit.bucket, neededMs: reservation.waitMs, maxWaitMs: limit.maxWaitMs };
    }
    const waits = limits.map((limit, i) => ({ bucket: limit.bucket, waitMs: reservation.waitsMs[i] }));
    // Every token is ours from its own time on; waiting for the latest covers the others.
    let waitedMs = 0;
    for (const w of waits) waitedMs = Math.max(waitedMs, w.waitMs);
    if (waitedMs > 0) await this.sleep(waitedMs);
    return { ok: true, waitedMs, waits };
  }

  /** Where the buckets live and whether that store answers (metrics, readiness). */
  storeStatus(): StoreStatus {
    return this.store.status();
  }
}

function limitOf(bucket: RateLimitBucket, key: string, settings: RateLimitSettings, maxWaitMs: number): Limit {
  return { bucket, key, params: { ratePerSecond: settings.ratePerSecond, burst: settings.burst }, maxWaitMs };
}

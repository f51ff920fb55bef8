import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../common/clock';
import { ROUTER_CONFIG } from '../config/config.tokens';
import type { RateLimitSettings, RouterConfig } from '../config/config.types';
import type { BucketParams } from './domain/token-bucket';
import { RATE_LIMIT_STORE, type RateLimitStore } from './rate-limit.store';
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
 * named bucket would have needed `neededMs` of waiting, over its `maxWaitMs`.
 */
export type RateLimitOutcome =
  | { ok: true; waitedMs: number; waits: readonly RateLimitWait[] }
  | { ok: false; bucket: RateLimitBucket; neededMs: number; maxWaitMs: number };

/** DESIGN §7's default, for a backend bucket whose settings lack one. */
const DEFAULT_MAX_WAIT_MS = 10_000;
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
 * The router's token buckets (DESIGN §7, issue #6): one global, one per principal and one per
 * backend, each only where configured. Where none applies, `acquire` resolves at once.
 */
@Injectable()
export class RateLimitService {
  private readonly global: Limit | undefined;
  private readonly perPrincipal: Omit<Limit, 'key'> | undefined;
  private readonly perBackend = new Map<string, Limit>();

  constructor(
    @Inject(ROUTER_CONFIG) config: RouterConfig,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SLEEP) private readonly sleep: Sleep,
  ) {
    const defaultWait = config.rateLimit?.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    this.global = config.rateLimit && limitOf('global', 'global', config.rateLimit, defaultWait);
    const principal = config.principalRateLimit;
    this.perPrincipal = principal && limitOf('principal', '', principal, principal.maxWaitMs ?? defaultWait);
    for (const backend of config.backends) {
      if (!backend.rateLimit) continue;
      // Backend names cannot contain ':', so no backend key collides with the global one.
      const maxWaitMs = backend.rateLimit.maxWaitMs ?? defaultWait;
      this.perBackend.set(backend.name, limitOf('backend', `backend:${backend.name}`, backend.rateLimit, maxWaitMs));
    }
  }

  /**
   * Takes one token from each bucket that applies (global, the principal's, the backend's),
   * waiting for them if needed. Resolves once the call may go to the backend, or at once with
   * `ok: false` when a wait would exceed that bucket's `maxWaitMs` (nothing is then taken from any).
   *
   * Call it only after every local refusal (unknown tool, blocked, invalid call, invalid cursor):
   * those never reach a backend and so cost no token. Store errors propagate (the in-memory store
   * has none).
   */
  async acquire(backend: string, principal?: string): Promise<RateLimitOutcome> {
    const limits: Limit[] = [];
    if (this.global) limits.push(this.global);
    // Principal ids are free text; the prefix keeps their keys apart from every other bucket's.
    if (this.perPrincipal && principal !== undefined) limits.push({ ...this.perPrincipal, key: `principal:${principal}` });
    const own = this.perBackend.get(backend);
    if (own) limits.push(own);
    if (limits.length === 0) return UNLIMITED;
    const nowMs = this.clock.now();
    const waits: RateLimitWait[] = [];
    for (const [i, limit] of limits.entries()) {
      const granted = await this.store.reserve(limit.key, COST, nowMs, limit.params, limit.maxWaitMs);
      if (!granted.ok) {
        // The tokens reserved so far were for a call that will not happen; without the refund a
        // busy backend would drain the global budget of every other backend.
        for (const earlier of limits.slice(0, i)) await this.store.refund(earlier.key, COST, nowMs, earlier.params);
        return refused(limit, granted.waitMs);
      }
      waits.push({ bucket: limit.bucket, waitMs: granted.waitMs });
    }
    // Every token is ours from its own time on; waiting for the latest covers the others.
    let waitedMs = 0;
    for (const w of waits) waitedMs = Math.max(waitedMs, w.waitMs);
    if (waitedMs > 0) await this.sleep(waitedMs);
    return { ok: true, waitedMs, waits };
  }
}

function limitOf(bucket: RateLimitBucket, key: string, settings: RateLimitSettings, maxWaitMs: number): Limit {
  return { bucket, key, params: { ratePerSecond: settings.ratePerSecond, burst: settings.burst }, maxWaitMs };
}

function refused(limit: Limit, neededMs: number): RateLimitOutcome {
  return { ok: false, bucket: limit.bucket, neededMs, maxWaitMs: limit.maxWaitMs };
}

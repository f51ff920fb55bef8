import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../common/clock';
import { ROUTER_CONFIG } from '../config/config.tokens';
import type { RateLimitSettings, RouterConfig } from '../config/config.types';
import type { BucketParams } from './domain/token-bucket';
import { RATE_LIMIT_STORE, type RateLimitStore } from './rate-limit.store';
import { SLEEP, type Sleep } from './rate-limit.tokens';

/** Which bucket waited or refused; doubles as a metrics label. */
export type RateLimitBucket = 'global' | 'backend';

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
 * The router's token buckets (DESIGN §7): one global and one per backend, each only where
 * configured. Where none applies, `acquire` resolves at once.
 */
@Injectable()
export class RateLimitService {
  private readonly global: Limit | undefined;
  private readonly perBackend = new Map<string, Limit>();

  constructor(
    @Inject(ROUTER_CONFIG) config: RouterConfig,
    @Inject(RATE_LIMIT_STORE) private readonly store: RateLimitStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(SLEEP) private readonly sleep: Sleep,
  ) {
    this.global = config.rateLimit && limitOf('global', 'global', config.rateLimit, config.rateLimit.maxWaitMs ?? DEFAULT_MAX_WAIT_MS);
    for (const backend of config.backends) {
      if (!backend.rateLimit) continue;
      // Backend names cannot contain ':', so no backend key collides with the global one.
      const maxWaitMs = backend.rateLimit.maxWaitMs ?? config.rateLimit?.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
      this.perBackend.set(backend.name, limitOf('backend', `backend:${backend.name}`, backend.rateLimit, maxWaitMs));
    }
  }

  /**
   * Takes one token from the global bucket and one from `backend`'s, waiting for them if needed.
   * Resolves once the call may go to the backend, or at once with `ok: false` when a wait would
   * exceed that bucket's `maxWaitMs` (nothing is then taken from either bucket).
   *
   * Call it only after every local refusal (unknown tool, blocked, invalid call, invalid cursor):
   * those never reach a backend and so cost no token. Store errors propagate (the in-memory store
   * has none).
   */
  async acquire(backend: string): Promise<RateLimitOutcome> {
    const global = this.global;
    const own = this.perBackend.get(backend);
    if (global === undefined && own === undefined) return UNLIMITED;
    const nowMs = this.clock.now();
    const waits: RateLimitWait[] = [];
    if (global !== undefined) {
      const granted = await this.store.reserve(global.key, COST, nowMs, global.params, global.maxWaitMs);
      if (!granted.ok) return refused(global, granted.waitMs);
      waits.push({ bucket: 'global', waitMs: granted.waitMs });
    }
    if (own !== undefined) {
      const granted = await this.store.reserve(own.key, COST, nowMs, own.params, own.maxWaitMs);
      if (!granted.ok) {
        // The global token was reserved for a call that will not happen; without the refund a
        // busy backend would drain the global budget of every other backend.
        if (global !== undefined) await this.store.refund(global.key, COST, nowMs, global.params);
        return refused(own, granted.waitMs);
      }
      waits.push({ bucket: 'backend', waitMs: granted.waitMs });
    }
    // Both tokens are ours from their own times on; waiting for the later covers the earlier.
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

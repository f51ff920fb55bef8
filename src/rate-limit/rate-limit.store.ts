import type { BucketParams } from './domain/token-bucket';

/** One bucket a call must take a token from: its key and its rules. */
export interface BucketRequest {
  key: string;
  params: BucketParams;
  maxWaitMs: number;
}

/**
 * A store's answer for all the buckets of one call. Granted: one wait per bucket, in the order
 * asked. Refused: `index` names the first bucket whose wait would exceed its `maxWaitMs`; no
 * bucket lost a token. Unavailable: the shared store could not answer and the failure policy is
 * `closed`.
 */
export type StoreReservation =
  { ok: true; waitsMs: readonly number[] } | { ok: false; reason: 'wait_too_long'; index: number; waitMs: number } | { ok: false; reason: 'store_unavailable' };

/** What metrics and readiness show about the store: whether calls still share their buckets. */
export interface StoreStatus {
  store: 'memory' | 'redis';
  /** False while the shared store cannot answer; the memory store is always up. */
  up: boolean;
  /** Calls decided without the shared store, by what happened to them, since boot. */
  fallbacks: { local: number; refused: number };
  /** The shared store's failure policy: `open` uses `1/replicas` of each bucket locally. */
  policy?: { fail: 'open' | 'closed'; replicas: number };
}

/**
 * Where buckets live (architecture §7). A store reserves all the buckets of one call at once, on its
 * own clock, or none: the memory store on the process's clock, the Redis store in one Lua script
 * on the Redis server's clock (one clock for every replica). Rules travel with every call, so a
 * store holds nothing but `{tokens, atMs}` per key and may forget a bucket once it is full again.
 */
export interface RateLimitStore {
  reserveAll(requests: readonly BucketRequest[], cost: number): Promise<StoreReservation>;
  status(): StoreStatus;
}

export const RATE_LIMIT_STORE = Symbol('centralmcp-router:rate-limit-store');

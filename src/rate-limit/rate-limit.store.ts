import type { BucketParams, Reservation } from './domain/token-bucket';

/**
 * Where buckets live. One key per bucket and all arithmetic inside the store, so a Redis store
 * (several replicas, DESIGN §7) can do each call atomically in one Lua script; the parameters
 * travel with every call, so the store holds nothing but `{tokens, atMs}` per key.
 */
export interface RateLimitStore {
  /** Reserves `cost` tokens from `key`'s bucket (created full if absent); see `reserve` in domain. */
  reserve(key: string, cost: number, nowMs: number, params: BucketParams, maxWaitMs: number): Promise<Reservation>;
  /** Returns a granted reservation to `key`'s bucket; a missing bucket is full already. */
  refund(key: string, cost: number, nowMs: number, params: BucketParams): Promise<void>;
}

export const RATE_LIMIT_STORE = Symbol('centralmcp-router:rate-limit-store');

import { refund, reserve, type Bucket, type BucketParams, type Reservation } from './domain/token-bucket';
import type { RateLimitStore } from './rate-limit.store';

/**
 * Buckets in this process (one replica). The keys are the configured buckets only, so the map
 * never grows past the number of backends plus one.
 */
export class MemoryBucketStore implements RateLimitStore {
  private readonly buckets = new Map<string, Bucket>();

  async reserve(key: string, cost: number, nowMs: number, params: BucketParams, maxWaitMs: number): Promise<Reservation> {
    const result = reserve(this.buckets.get(key), cost, nowMs, params, maxWaitMs);
    this.buckets.set(key, result.bucket);
    return result.ok ? { ok: true, waitMs: result.waitMs } : { ok: false, waitMs: result.waitMs };
  }

  async refund(key: string, cost: number, nowMs: number, params: BucketParams): Promise<void> {
    const bucket = this.buckets.get(key);
    if (bucket !== undefined) this.buckets.set(key, refund(bucket, cost, nowMs, params));
  }
}

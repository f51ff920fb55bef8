import type { Clock } from '../common/clock';
import { idleMs, reserveAll, type Bucket } from './domain/token-bucket';
import type { BucketRequest, RateLimitStore, StoreReservation, StoreStatus } from './rate-limit.store';

/** How often, at most, a reservation also sweeps out idle buckets. */
const SWEEP_EVERY_MS = 60_000;

interface Entry {
  bucket: Bucket;
  /** From then on the bucket is full again and equals a new one. */
  idleAtMs: number;
}

/**
 * Buckets in this process (one replica, or one replica's share while Redis is away). There is a
 * bucket per principal ever seen, so buckets that are full again are swept out as they go idle
 * (forgetting a full bucket changes no answer): the map holds only the callers of the last
 * minute or so, not every caller since boot.
 */
export class MemoryBucketStore implements RateLimitStore {
  private readonly entries = new Map<string, Entry>();
  private nextSweepMs = 0;

  constructor(private readonly clock: Clock) {}

  reserveAll(requests: readonly BucketRequest[], cost: number): Promise<StoreReservation> {
    return Promise.resolve(this.reserveAllNow(requests, cost));
  }

  /** The same, synchronously: one decision, so nothing interleaves between the buckets. */
  reserveAllNow(requests: readonly BucketRequest[], cost: number): StoreReservation {
    const nowMs = this.clock.now();
    this.sweep(nowMs);
    const result = reserveAll(
      requests.map((r) => ({ bucket: this.entries.get(r.key)?.bucket, params: r.params, maxWaitMs: r.maxWaitMs })),
      cost,
      nowMs,
    );
    if (!result.ok) return { ok: false, reason: 'wait_too_long', index: result.index, waitMs: result.waitMs };
    for (const [i, bucket] of result.buckets.entries()) {
      this.entries.set(requests[i].key, { bucket, idleAtMs: bucket.atMs + idleMs(bucket, requests[i].params) });
    }
    return { ok: true, waitsMs: result.waitsMs };
  }

  status(): StoreStatus {
    return { store: 'memory', up: true, fallbacks: { local: 0, refused: 0 } };
  }

  /** Buckets held now (idle ones included until the next sweep). */
  get size(): number {
    return this.entries.size;
  }

  private sweep(nowMs: number): void {
    if (nowMs < this.nextSweepMs) return;
    this.nextSweepMs = nowMs + SWEEP_EVERY_MS;
    for (const [key, entry] of this.entries) if (entry.idleAtMs <= nowMs) this.entries.delete(key);
  }
}

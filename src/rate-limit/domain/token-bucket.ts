/**
 * Token-bucket arithmetic with reservations (architecture §7). Pure: time comes in as `nowMs`, the
 * bucket comes in and a new one goes out, so the same functions back the in-memory store and
 * describe what a Redis Lua script must compute.
 */

/** A bucket's state: `tokens` may be negative while reservations are outstanding. */
export interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date. */
  atMs: number;
}

export interface BucketParams {
  /** Tokens added per second; may be fractional (0.5 = one call every two seconds). */
  ratePerSecond: number;
  /** Capacity: the most calls that can go at once after an idle period. */
  burst: number;
}

/**
 * The answer to a reservation. Granted (`ok: true`): the caller owns a token and must wait
 * `waitMs` before using it. Refused (`ok: false`): `waitMs` is what would have been needed; nothing
 * was taken.
 */
export type Reservation = { ok: true; waitMs: number } | { ok: false; waitMs: number };

/** A reservation with the bucket to store afterwards. */
export type ReserveResult = Reservation & { bucket: Bucket };

/**
 * Float noise in the refill sum (0.1 + 0.2 …) would otherwise round an exact 30 ms up to 31 ms;
 * a micro-millisecond early is far below any clock's resolution.
 */
const ROUNDING_SLACK_MS = 1e-6;

/** A new bucket starts full, so the first `burst` calls go at once. */
export function fullBucket(nowMs: number, params: BucketParams): Bucket {
  return { tokens: params.burst, atMs: nowMs };
}

/**
 * Brings a bucket up to `nowMs`, capped at `burst`. A clock that steps back (another replica's, or
 * NTP) adds nothing and keeps the later `atMs`, so the same interval is never credited twice.
 */
export function refill(bucket: Bucket, nowMs: number, params: BucketParams): Bucket {
  if (nowMs <= bucket.atMs) return bucket;
  const tokens = Math.min(params.burst, bucket.tokens + ((nowMs - bucket.atMs) / 1000) * params.ratePerSecond);
  return { tokens, atMs: nowMs };
}

/**
 * Reserves `cost` tokens. Tokens may go negative: the caller is granted a future token and waits
 * for it, so concurrent callers queue in arrival order instead of all waking and retrying at
 * once. When the wait needed exceeds `maxWaitMs` the call is refused at once (architecture §7: fail
 * instead of sleeping for nothing) and the bucket is only refilled, not debited.
 */
export function reserve(bucket: Bucket | undefined, cost: number, nowMs: number, params: BucketParams, maxWaitMs: number): ReserveResult {
  const current = bucket === undefined ? fullBucket(nowMs, params) : refill(bucket, nowMs, params);
  const tokens = current.tokens - cost;
  const waitMs = tokens >= 0 ? 0 : Math.max(0, Math.ceil((-tokens / params.ratePerSecond) * 1000 - ROUNDING_SLACK_MS));
  if (waitMs > maxWaitMs) return { ok: false, waitMs, bucket: current };
  return { ok: true, waitMs, bucket: { tokens, atMs: current.atMs } };
}

/** One bucket of a call: its state (undefined: never used, or evicted while idle) and its rules. */
export interface BucketCall {
  bucket: Bucket | undefined;
  params: BucketParams;
  maxWaitMs: number;
}

/**
 * The answer for all the buckets of one call. Granted: one wait per bucket, in order, and the
 * buckets to store. Refused: `index` is the first bucket whose wait would exceed its `maxWaitMs`,
 * `waitMs` that wait; nothing may be stored, so no bucket loses a token.
 */
export type ReserveAllResult = { ok: true; waitsMs: number[]; buckets: Bucket[] } | { ok: false; index: number; waitMs: number };

/**
 * Takes `cost` tokens from every bucket of a call, or from none (architecture §7): a call
 * that one bucket refuses takes nothing from the others, so a busy backend never drains the
 * global or a principal's budget for calls that do not happen. The Redis store's Lua script
 * computes exactly this.
 */
export function reserveAll(calls: readonly BucketCall[], cost: number, nowMs: number): ReserveAllResult {
  const waitsMs: number[] = [];
  const buckets: Bucket[] = [];
  for (const [index, call] of calls.entries()) {
    const r = reserve(call.bucket, cost, nowMs, call.params, call.maxWaitMs);
    if (!r.ok) return { ok: false, index, waitMs: r.waitMs };
    waitsMs.push(r.waitMs);
    buckets.push(r.bucket);
  }
  return { ok: true, waitsMs, buckets };
}

/**
 * How long after its last update a bucket is full again: from then on it equals a bucket that
 * was never used, so a store may forget it (Redis PEXPIRE, the memory store's sweep) without
 * changing any answer.
 */
export function idleMs(bucket: Bucket, params: BucketParams): number {
  return Math.max(0, Math.ceil(((params.burst - bucket.tokens) / params.ratePerSecond) * 1000));
}

/**
 * One replica's share of a cluster-wide bucket, for when the shared store cannot answer (fail
 * open): with `replicas` replicas each allowing this, the cluster stays within the
 * configured rate and burst. The burst never drops below one token, or no call could ever go.
 */
export function shareOf(params: BucketParams, replicas: number): BucketParams {
  if (replicas <= 1) return params;
  return { ratePerSecond: params.ratePerSecond / replicas, burst: Math.max(1, params.burst / replicas) };
}

import { Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Clock } from '../common/clock';
import { messageOf } from '../common/thrown';
import type { RedisStoreConfig } from '../config/config.types';
import { shareOf } from './domain/token-bucket';
import { MemoryBucketStore } from './memory-bucket.store';
import type { BucketRequest, RateLimitStore, StoreReservation, StoreStatus } from './rate-limit.store';
import { RedisBucketClient } from './redis-bucket.client';

/**
 * After a reservation fails, calls skip Redis for this long before one tries it again: a Redis
 * that hangs would otherwise add `commandTimeoutMs` to every call. A Redis that is down costs
 * nothing to try (the client rejects at once), so it comes back as soon as it reconnects.
 */
const RETRY_AFTER_MS = 1_000;

/**
 * Buckets shared by every replica through Redis (architecture §7), so a configured rate is
 * the cluster's. When Redis cannot answer (down, or slower than `commandTimeoutMs`) the failure
 * policy decides: `open` (default) takes the token from this replica's own bucket at its share
 * (`rate / replicas`), so the cluster stays near the rate while calls go on; `closed` refuses the
 * call. Either way `status()` says so (metrics, readiness), and Redis answering again ends it.
 */
export class RedisBucketStore implements RateLimitStore, OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RedisBucketStore.name);
  private readonly local: MemoryBucketStore;
  /** `connecting` until Redis first answers or fails; then each change is logged once. */
  private state: 'connecting' | 'up' | 'down' = 'connecting';
  private skipUntilMs = 0;
  private readonly fallbacks = { local: 0, refused: 0 };

  constructor(
    private readonly config: RedisStoreConfig,
    private readonly clock: Clock,
    private readonly client: RedisBucketClient = new RedisBucketClient(config),
  ) {
    this.local = new MemoryBucketStore(clock);
    client.on('ready', () => this.markUp());
    // ioredis reports every failed reconnect; the store logs the change of state once instead.
    client.on('error', (err) => this.markDown(err.message));
    client.on('close', () => this.markDown('connection to Redis closed'));
  }

  /**
   * Connects at boot, bounded by `connectTimeoutMs`. A Redis that is not there yet does not stop
   * the router: the failure policy applies until it answers.
   */
  async onModuleInit(): Promise<void> {
    try {
      await this.client.connect();
    } catch (err) {
      this.markDown(messageOf(err));
    }
  }

  async reserveAll(requests: readonly BucketRequest[], cost: number): Promise<StoreReservation> {
    if (!this.client.ready) this.markDown('not connected to Redis');
    else if (this.clock.now() >= this.skipUntilMs) {
      try {
        const answer = await this.client.reserveAll(requests, cost);
        this.markUp();
        return answer;
      } catch (err) {
        // A script that timed out here may still have run on Redis: the call then holds a shared
        // token and a local one. That errs towards fewer calls, never more.
        this.skipUntilMs = this.clock.now() + RETRY_AFTER_MS;
        this.markDown(messageOf(err));
      }
    }
    if (this.config.fail === 'closed') {
      this.fallbacks.refused++;
      return { ok: false, reason: 'store_unavailable' };
    }
    this.fallbacks.local++;
    const share = requests.map((r) => ({ ...r, params: shareOf(r.params, this.config.replicas) }));
    return this.local.reserveAllNow(share, cost);
  }

  status(): StoreStatus {
    return {
      store: 'redis',
      up: this.state === 'up',
      fallbacks: { ...this.fallbacks },
      policy: { fail: this.config.fail, replicas: this.config.replicas },
    };
  }

  onModuleDestroy(): void {
    this.client.close();
  }

  private markUp(): void {
    if (this.state === 'up') return;
    this.state = 'up';
    this.skipUntilMs = 0;
    this.logger.log({ msg: 'rate-limit store up: buckets are shared through Redis' });
  }

  private markDown(error: string): void {
    if (this.state === 'down') return;
    this.state = 'down';
    const then = this.config.fail === 'closed' ? 'calls that need a token fail' : `each replica allows 1/${this.config.replicas} of each rate`;
    // ioredis messages name the host and port, never the URL's password.
    this.logger.warn({ msg: `rate-limit store unavailable: ${then}`, error });
  }
}

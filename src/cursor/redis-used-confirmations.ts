import { Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { messageOf } from '../common/thrown';
import type { RedisStoreConfig } from '../config/config.types';
import { openRedisStore } from '../config/redis-connection';
import type { ClaimResult, LookupResult, UsedConfirmations } from './used-confirmations';

/**
 * Used confirmation ids shared by every replica through the Redis of `rateLimit.redis` (architecture §11.2):
 * a claim is one `SET <keyPrefix>confirm:<id> 1 NX PX <ttl>`, atomic on the Redis server, so of
 * two replicas handed the same token at once exactly one runs the write.
 *
 * Without Redis the claim is `unavailable` and the write is refused, whatever `rateLimit.redis.fail`
 * says: failing open is fine for a rate (a replica's share keeps the cluster near it) but would
 * let a replayed token write twice, which nothing undoes. The token is not used up by the refusal,
 * so the caller may send the same call again once Redis answers. One exception errs the same way:
 * a SET that timed out may have been applied, and the retry then reads "already used" (ask again,
 * never a double write).
 */
export class RedisUsedConfirmations implements UsedConfirmations, OnModuleInit, OnModuleDestroy {
  /** Every replica sharing this Redis and key prefix shares the record, so each vouches for the others' tokens. */
  readonly scope: string;
  private readonly logger = new Logger(RedisUsedConfirmations.name);
  private readonly redis: Redis;
  private state: 'connecting' | 'up' | 'down' = 'connecting';

  constructor(private readonly config: RedisStoreConfig) {
    this.scope = `shared:${config.keyPrefix}`;
    this.redis = openRedisStore(config);
    this.redis.on('ready', () => this.mark('up'));
    this.redis.on('error', (err: Error) => this.mark('down', err.message));
    this.redis.on('close', () => this.mark('down', 'connection to Redis closed'));
  }

  /** Connects at boot; a Redis not there yet does not stop the router (confirmed writes wait for it). */
  async onModuleInit(): Promise<void> {
    try {
      await this.redis.connect();
    } catch (err) {
      this.mark('down', messageOf(err));
    }
  }

  async lookup(id: string): Promise<LookupResult> {
    if (this.redis.status !== 'ready') return 'unavailable';
    try {
      const found = await this.redis.exists(this.keyOf(id));
      this.mark('up');
      return found > 0 ? 'used' : 'unused';
    } catch (err) {
      this.mark('down', messageOf(err));
      return 'unavailable';
    }
  }

  async claim(id: string, ttlMs: number): Promise<ClaimResult> {
    if (this.redis.status !== 'ready') return 'unavailable';
    try {
      const reply = await this.redis.set(this.keyOf(id), '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX');
      this.mark('up');
      return reply === 'OK' ? 'claimed' : 'used';
    } catch (err) {
      this.mark('down', messageOf(err));
      return 'unavailable';
    }
  }

  private keyOf(id: string): string {
    return `${this.config.keyPrefix}confirm:${id}`;
  }

  onModuleDestroy(): void {
    this.redis.disconnect();
  }

  private mark(state: 'up' | 'down', error?: string): void {
    if (this.state === state) return;
    this.state = state;
    // ioredis messages name the host and port, never the URL's password.
    if (state === 'up') this.logger.log({ msg: 'confirmation store up: used confirmations are shared through Redis' });
    else this.logger.warn({ msg: 'confirmation store unavailable: writes that need confirmation are refused until Redis answers', error });
  }
}

import { Module } from '@nestjs/common';
import { CLOCK, systemClock, type Clock } from '../common/clock';
import { RATE_LIMIT_STORE_CONFIG } from '../config/config.tokens';
import type { RateLimitStoreConfig } from '../config/config.types';
import { MetricsModule } from '../metrics/metrics.module';
import { MemoryBucketStore } from './memory-bucket.store';
import { RateLimitMetrics } from './rate-limit.metrics';
import { RATE_LIMIT_STORE, type RateLimitStore } from './rate-limit.store';
import { RateLimitService } from './rate-limit.service';
import { SLEEP, timerSleep } from './rate-limit.tokens';
import { RedisBucketStore } from './redis-bucket.store';

/** The store the config names (`rateLimit.store`), chosen once at boot. */
function storeFor(store: RateLimitStoreConfig, clock: Clock): RateLimitStore {
  switch (store.kind) {
    case 'memory':
      return new MemoryBucketStore(clock);
    case 'redis':
      return new RedisBucketStore(store, clock);
  }
}

/**
 * Rate limiting (architecture §7). Buckets live in memory (one replica) or in Redis (several replicas
 * sharing each rate), as `rateLimit.store` says. Reads its config slices from the global
 * ConfigModule. The Redis store connects at module init and disconnects at module destroy.
 */
@Module({
  imports: [MetricsModule],
  providers: [
    RateLimitService,
    RateLimitMetrics,
    { provide: RATE_LIMIT_STORE, inject: [RATE_LIMIT_STORE_CONFIG, CLOCK], useFactory: storeFor },
    { provide: CLOCK, useValue: systemClock },
    { provide: SLEEP, useValue: timerSleep },
  ],
  exports: [RateLimitService],
})
export class RateLimitModule {}

import { Module } from '@nestjs/common';
import { CLOCK, systemClock, type Clock } from '../common/clock';
import { ROUTER_CONFIG } from '../config/config.tokens';
import type { RouterConfig } from '../config/config.types';
import { MetricsModule } from '../metrics/metrics.module';
import { MemoryBucketStore } from './memory-bucket.store';
import { RateLimitMetrics } from './rate-limit.metrics';
import { RATE_LIMIT_STORE, type RateLimitStore } from './rate-limit.store';
import { RateLimitService } from './rate-limit.service';
import { SLEEP, timerSleep } from './rate-limit.tokens';
import { RedisBucketStore } from './redis-bucket.store';

/** The store the config names (`rateLimit.store`), chosen once at boot. */
function storeFor(config: RouterConfig, clock: Clock): RateLimitStore {
  const store = config.rateLimitStore ?? { kind: 'memory' };
  switch (store.kind) {
    case 'memory':
      return new MemoryBucketStore(clock);
    case 'redis':
      return new RedisBucketStore(store, clock);
  }
}

/**
 * Rate limiting (architecture §7). Buckets live in memory (one replica) or in Redis (several replicas
 * sharing each rate), as `rateLimit.store` says. Reads ROUTER_CONFIG from the global
 * ConfigModule. The Redis store connects at module init and disconnects at module destroy.
 */
@Module({
  imports: [MetricsModule],
  providers: [
    RateLimitService,
    RateLimitMetrics,
    { provide: RATE_LIMIT_STORE, inject: [ROUTER_CONFIG, CLOCK], useFactory: storeFor },
    { provide: CLOCK, useValue: systemClock },
    { provide: SLEEP, useValue: timerSleep },
  ],
  exports: [RateLimitService],
})
export class RateLimitModule {}

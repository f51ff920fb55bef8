import { Module } from '@nestjs/common';
import { CLOCK, systemClock } from '../common/clock';
import { MemoryBucketStore } from './memory-bucket.store';
import { RATE_LIMIT_STORE } from './rate-limit.store';
import { RateLimitService } from './rate-limit.service';
import { SLEEP, timerSleep } from './rate-limit.tokens';

/**
 * Rate limiting (DESIGN §7). Buckets live in memory (one replica); a Redis store for several
 * replicas binds RATE_LIMIT_STORE instead. Reads ROUTER_CONFIG from the global ConfigModule.
 */
@Module({
  providers: [
    RateLimitService,
    { provide: RATE_LIMIT_STORE, useFactory: () => new MemoryBucketStore() },
    { provide: CLOCK, useValue: systemClock },
    { provide: SLEEP, useValue: timerSleep },
  ],
  exports: [RateLimitService],
})
export class RateLimitModule {}

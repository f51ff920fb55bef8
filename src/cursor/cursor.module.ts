import { Module } from '@nestjs/common';
import { CLOCK, systemClock, type Clock } from '../common/clock';
import { RATE_LIMIT_STORE_CONFIG, WRITES_CONFIG } from '../config/config.tokens';
import type { RateLimitStoreConfig, WritesConfig } from '../config/config.types';
import { CursorService } from './cursor.service';
import { MemoryUsedConfirmations } from './memory-used-confirmations';
import { RedisUsedConfirmations } from './redis-used-confirmations';
import { USED_CONFIRMATIONS, type UsedConfirmations } from './used-confirmations';

/**
 * Where used confirmation ids are kept (architecture §11.2): with writes enabled and `rateLimit.store:
 * redis`, in that Redis (single use across replicas, on a connection of its own); otherwise in
 * memory.
 */
function usedConfirmationsFor(writes: WritesConfig, shared: RateLimitStoreConfig, clock: Clock): UsedConfirmations {
  // Without writes no token is ever used: no second Redis connection for nothing.
  const store = writes.enabled ? shared : { kind: 'memory' as const };
  switch (store.kind) {
    case 'memory':
      return new MemoryUsedConfirmations(clock);
    case 'redis':
      return new RedisUsedConfirmations(store);
  }
}

/** Cursors and confirmation tokens. Reads its config slices from the global ConfigModule. */
@Module({
  providers: [
    CursorService,
    { provide: CLOCK, useValue: systemClock },
    { provide: USED_CONFIRMATIONS, inject: [WRITES_CONFIG, RATE_LIMIT_STORE_CONFIG, CLOCK], useFactory: usedConfirmationsFor },
  ],
  exports: [CursorService],
})
export class CursorModule {}

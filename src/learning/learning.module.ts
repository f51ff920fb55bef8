import { Module } from '@nestjs/common';
import { CLOCK, systemClock, type Clock } from '../common/clock';
import { DISCOVERY_CONFIG } from '../config/config.tokens';
import type { DiscoveryConfig } from '../config/config.types';
import { MetricsModule } from '../metrics/metrics.module';
import { RegistryModule } from '../registry/registry.module';
import { TrustModule } from '../trust/trust.module';
import type { LearningLimits } from './domain/associations';
import { FileLearningStore } from './file-learning.store';
import { LearningMetrics } from './learning.metrics';
import { LearningService } from './learning.service';
import { LEARNING_STORE, type LearningStore } from './learning.store';
import { MemoryLearningStore } from './memory-learning.store';
import { RedisLearningStore } from './redis-learning.store';

/** The store `discovery.learning.store` names, chosen once at boot; none with learning off. */
function storeFor(discovery: DiscoveryConfig, clock: Clock): LearningStore | undefined {
  const config = discovery.learning;
  if (config === undefined) return undefined;
  const limits: LearningLimits = { minPrincipals: config.minPrincipals, halfLifeMs: config.halfLifeHours * 3_600_000, maxAssociations: config.maxAssociations };
  switch (config.store.kind) {
    case 'memory':
      return new MemoryLearningStore(limits, clock);
    case 'file':
      return new FileLearningStore(config.store.path, limits, clock);
    case 'redis':
      return new RedisLearningStore(config.store, limits, clock);
  }
}

/** Learning from use for `find_tool` (architecture §1.2): fed by discovery and by calls, read by the ranking. */
@Module({
  imports: [MetricsModule, RegistryModule, TrustModule],
  providers: [
    LearningService,
    LearningMetrics,
    { provide: LEARNING_STORE, inject: [DISCOVERY_CONFIG, CLOCK], useFactory: storeFor },
    { provide: CLOCK, useValue: systemClock },
  ],
  exports: [LearningService],
})
export class LearningModule {}

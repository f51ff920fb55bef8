import { Module } from '@nestjs/common';
import { CLOCK, systemClock } from '../common/clock';
import { DISCOVERY_CONFIG } from '../config/config.tokens';
import { MetricsModule } from '../metrics/metrics.module';
import { RegistryModule } from '../registry/registry.module';
import { TrustModule } from '../trust/trust.module';
import { LearningMetrics } from './learning.metrics';
import { LearningService } from './learning.service';
import { LEARNING_STORE } from './learning.store';
import { storeFor } from './learning-store.factory';

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

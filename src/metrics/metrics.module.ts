import { Module } from '@nestjs/common';
import { BackendsModule } from '../backends/backends.module';
import { EmbeddingsModule } from '../discovery/embeddings.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { RegistryModule } from '../registry/registry.module';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';

/**
 * Prometheus metrics and `GET /metrics`. Reads backend state, catalog sizes and the rate-limit
 * store's state at scrape time; the dispatch seam (batch) records outcomes through MetricsService.
 */
@Module({
  imports: [BackendsModule, RegistryModule, EmbeddingsModule, RateLimitModule],
  controllers: [MetricsController],
  providers: [MetricsService],
  exports: [MetricsService],
})
export class MetricsModule {}

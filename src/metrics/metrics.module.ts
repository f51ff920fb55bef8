import { Module } from '@nestjs/common';
import { BackendsModule } from '../backends/backends.module';
import { RegistryModule } from '../registry/registry.module';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';

/**
 * Prometheus metrics and `GET /metrics`. Reads backend state and catalog sizes at scrape time;
 * the dispatch seam (batch) records outcomes through MetricsService.
 */
@Module({
  imports: [BackendsModule, RegistryModule],
  controllers: [MetricsController],
  providers: [MetricsService],
  exports: [MetricsService],
})
export class MetricsModule {}

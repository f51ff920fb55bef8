import { Module } from '@nestjs/common';
import { Registry } from 'prom-client';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { METRICS_REGISTRY } from './metrics.tokens';

/**
 * Prometheus metrics and `GET /metrics`. Owns the registry; the dispatch seam (batch) records
 * outcomes through MetricsService, and each module that owns live state (backends, registry,
 * rate-limit) registers the collectors of that state in METRICS_REGISTRY itself.
 */
@Module({
  controllers: [MetricsController],
  providers: [{ provide: METRICS_REGISTRY, useFactory: () => new Registry() }, MetricsService],
  exports: [METRICS_REGISTRY, MetricsService],
})
export class MetricsModule {}

import { Module } from '@nestjs/common';
import { MetricsModule } from '../metrics/metrics.module';
import { OfferingCatalog } from './offering-catalog.service';
import { RegistryMetrics } from './registry.metrics';
import { RegistryService } from './registry.service';

@Module({
  imports: [MetricsModule],
  providers: [RegistryService, RegistryMetrics, OfferingCatalog],
  exports: [RegistryService, OfferingCatalog],
})
export class RegistryModule {}

import { Module } from '@nestjs/common';
import { MetricsModule } from '../metrics/metrics.module';
import { RegistryMetrics } from './registry.metrics';
import { RegistryService } from './registry.service';

@Module({
  imports: [MetricsModule],
  providers: [RegistryService, RegistryMetrics],
  exports: [RegistryService],
})
export class RegistryModule {}

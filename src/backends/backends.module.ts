import { Module } from '@nestjs/common';
import { MetricsModule } from '../metrics/metrics.module';
import { RegistryModule } from '../registry/registry.module';
import { BackendsMetrics } from './backends.metrics';
import { BackendsService } from './backends.service';

/** MCP client connections to the backends. BACKENDS_CONFIG comes from the (global) config module. */
@Module({ imports: [RegistryModule, MetricsModule], providers: [BackendsService, BackendsMetrics], exports: [BackendsService] })
export class BackendsModule {}

import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { BackendsModule } from '../backends/backends.module';
import { MetricsModule } from '../metrics/metrics.module';
import { RegistryModule } from '../registry/registry.module';
import { TrustService } from './trust.service';

/** Pinned tool definitions and the periodic re-list (architecture §11.1). */
@Module({
  imports: [RegistryModule, BackendsModule, MetricsModule, AuditModule],
  providers: [TrustService],
  exports: [TrustService],
})
export class TrustModule {}

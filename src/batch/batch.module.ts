import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module';
import { AuditModule } from '../audit/audit.module';
import { BackendsModule } from '../backends/backends.module';
import { CursorModule } from '../cursor/cursor.module';
import { GateModule } from '../gate/gate.module';
import { LearningModule } from '../learning/learning.module';
import { MetricsModule } from '../metrics/metrics.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { RegistryModule } from '../registry/registry.module';
import { TrustModule } from '../trust/trust.module';
import { BackendCallService } from './backend-call.service';
import { BatchService } from './batch.service';
import { CallRecordService } from './call-record.service';
import { OfferingsService } from './offerings.service';
import { ToolResolutionService } from './tool-resolution.service';
import { WriteService } from './write.service';

@Module({
  imports: [GateModule, RateLimitModule, RegistryModule, BackendsModule, CursorModule, MetricsModule, AccessModule, AuditModule, TrustModule, LearningModule],
  providers: [BatchService, WriteService, ToolResolutionService, BackendCallService, CallRecordService, OfferingsService],
  exports: [BatchService, WriteService, OfferingsService],
})
export class BatchModule {}

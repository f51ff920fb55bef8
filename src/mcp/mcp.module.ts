import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { BatchModule } from '../batch/batch.module';
import { DiscoveryModule } from '../discovery/discovery.module';
import { MetricsModule } from '../metrics/metrics.module';
import { PublishModule } from '../publish/publish.module';
import { LegacyEra } from './legacy-era';
import { McpController } from './mcp.controller';
import { McpService } from './mcp.service';
import { ModernEra } from './modern-era';
import { OfferingMethods } from './offering-methods';
import { PublishedSurface } from './published-surface';
import { ListChangeStreams } from './list-change-streams';

@Module({
  imports: [BatchModule, DiscoveryModule, PublishModule, AuthModule, AuditModule, MetricsModule],
  controllers: [McpController],
  providers: [McpService, PublishedSurface, LegacyEra, ModernEra, OfferingMethods, ListChangeStreams],
})
export class McpModule {}

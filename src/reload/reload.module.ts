import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { MetricsModule } from '../metrics/metrics.module';
import { ReloadService } from './reload.service';

/**
 * Config reload (architecture §3.1): reads the config file again on SIGHUP or when it changes,
 * and hands a valid one to ConfigService, to which the modules that apply it subscribe. It depends
 * on none of them, so reloadable modules never depend on it.
 */
@Module({ imports: [AuditModule, MetricsModule], providers: [ReloadService], exports: [ReloadService] })
export class ReloadModule {}

import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { BackendsModule } from '../backends/backends.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { RegistryModule } from '../registry/registry.module';
import { HealthController } from './health.controller';
import { ReadinessIndicator } from './readiness.indicator';

/**
 * `/health/live` and `/health/ready` (terminus). Terminus's own logger is off: the indicator logs
 * changes of readiness once rather than an error on every failed probe.
 */
@Module({
  imports: [TerminusModule.forRoot({ logger: false }), BackendsModule, RegistryModule, RateLimitModule],
  controllers: [HealthController],
  providers: [ReadinessIndicator],
})
export class HealthModule {}

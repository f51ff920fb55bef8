import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule } from './config/config.module';
import type { RouterConfig } from './config/config.types';
import { HealthModule } from './health/health.module';
import { LifecycleModule } from './lifecycle/lifecycle.module';
import { McpModule } from './mcp/mcp.module';
import { MetricsModule } from './metrics/metrics.module';
import { ReloadModule } from './reload/reload.module';
import { TracingModule } from './tracing/tracing.module';
import { NO_TRACING, type Tracing } from './tracing/tracing';

/**
 * The router. Built from an already validated config, so tests pass theirs directly; `tracing` is
 * built from the config before Nest starts (see `createApp`), and is off unless given.
 */
@Module({})
export class AppModule {
  static register(config: RouterConfig, tracing: Tracing = NO_TRACING): DynamicModule {
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(config), TracingModule.forRoot(tracing), LifecycleModule, McpModule, MetricsModule, HealthModule, ReloadModule],
    };
  }
}

import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule } from './config/config.module';
import type { RouterConfig } from './config/config.types';
import { HealthModule } from './health/health.module';
import { LifecycleModule } from './lifecycle/lifecycle.module';
import { McpModule } from './mcp/mcp.module';
import { MetricsModule } from './metrics/metrics.module';
import { ReloadModule } from './reload/reload.module';

/** The router. Built from an already validated config, so tests pass theirs directly. */
@Module({})
export class AppModule {
  static register(config: RouterConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(config), LifecycleModule, McpModule, MetricsModule, HealthModule, ReloadModule],
    };
  }
}

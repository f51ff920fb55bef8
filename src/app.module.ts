import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule } from './config/config.module';
import type { RouterConfig } from './config/config.types';
import { McpModule } from './mcp/mcp.module';

/** The router. Built from an already validated config, so tests pass theirs directly. */
@Module({})
export class AppModule {
  static register(config: RouterConfig): DynamicModule {
    return { module: AppModule, imports: [ConfigModule.forRoot(config), McpModule] };
  }
}

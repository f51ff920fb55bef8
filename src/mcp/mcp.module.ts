import { Module } from '@nestjs/common';
import { BatchModule } from '../batch/batch.module';
import { McpController } from './mcp.controller';
import { McpService } from './mcp.service';

@Module({ imports: [BatchModule], controllers: [McpController], providers: [McpService] })
export class McpModule {}

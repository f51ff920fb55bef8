import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { AuthModule } from '../auth/auth.module';
import { BatchModule } from '../batch/batch.module';
import { McpController } from './mcp.controller';
import { McpService } from './mcp.service';

@Module({ imports: [BatchModule, AuthModule, AuditModule], controllers: [McpController], providers: [McpService] })
export class McpModule {}

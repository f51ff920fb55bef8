import { Module } from '@nestjs/common';
import { RegistryModule } from '../registry/registry.module';
import { BackendsService } from './backends.service';

/** MCP client connections to the backends. BACKENDS_CONFIG comes from the (global) config module. */
@Module({ imports: [RegistryModule], providers: [BackendsService], exports: [BackendsService] })
export class BackendsModule {}

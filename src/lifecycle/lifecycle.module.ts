import { Global, Module } from '@nestjs/common';
import { LifecycleService } from './lifecycle.service';

/**
 * The process's drain state. Global, as config is: there is one per process, the /mcp edge and
 * health both read it, and it depends on nothing but config.
 */
@Global()
@Module({ providers: [LifecycleService], exports: [LifecycleService] })
export class LifecycleModule {}

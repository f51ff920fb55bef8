import { Module } from '@nestjs/common';
import { GateModule } from '../gate/gate.module';
import { TrustModule } from '../trust/trust.module';
import { AccessService } from './access.service';
import { CallableService } from './callable.service';

/**
 * Per-principal access rules (architecture §10), and what a caller can call now through some
 * published tool. Reads ACCESS_CONFIG and AUTH_CONFIG from the global ConfigModule.
 */
@Module({ imports: [GateModule, TrustModule], providers: [AccessService, CallableService], exports: [AccessService, CallableService] })
export class AccessModule {}

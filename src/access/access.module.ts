import { Module } from '@nestjs/common';
import { AccessService } from './access.service';

/** Per-principal access rules (architecture §10). Reads ACCESS_CONFIG and AUTH_CONFIG from the global ConfigModule. */
@Module({ providers: [AccessService], exports: [AccessService] })
export class AccessModule {}

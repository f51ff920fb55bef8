import { Module } from '@nestjs/common';
import { CLOCK, systemClock } from '../common/clock';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';

/** Authentication (architecture §10): AuthService for /mcp, and the RFC 9728 metadata route. */
@Module({ controllers: [AuthController], providers: [AuthService, { provide: CLOCK, useValue: systemClock }], exports: [AuthService] })
export class AuthModule {}

import { Module } from '@nestjs/common';
import { CLOCK, systemClock } from '../common/clock';
import { AUDIT_CONFIG } from '../config/config.tokens';
import type { AuditConfig } from '../config/config.types';
import { AuditService } from './audit.service';
import { AUDIT_SINK, type AuditSink } from './audit.sink';
import { FileAuditSink } from './file-audit.sink';
import { StdoutAuditSink } from './stdout-audit.sink';

/** The audit trail (architecture §10). The sink is chosen by AUDIT_CONFIG; a file is opened once, at boot. */
@Module({
  providers: [
    AuditService,
    {
      provide: AUDIT_SINK,
      inject: [AUDIT_CONFIG],
      useFactory: (config: AuditConfig): AuditSink => (config.sink === 'file' ? FileAuditSink.open(config.path) : new StdoutAuditSink()),
    },
    { provide: CLOCK, useValue: systemClock },
  ],
  exports: [AuditService],
})
export class AuditModule {}

import { Module } from '@nestjs/common';
import { CLOCK, systemClock } from '../common/clock';
import { CursorService } from './cursor.service';

@Module({
  providers: [CursorService, { provide: CLOCK, useValue: systemClock }],
  exports: [CursorService],
})
export class CursorModule {}

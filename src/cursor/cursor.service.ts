import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../common/clock';
import { CURSOR_CONFIG } from '../config/config.tokens';
import type { CursorConfig } from '../config/config.types';
import { checkCursor, encodeCursor, type CursorRejection } from './domain/cursor-codec';
import type { Position } from './domain/bounding';

/** What a cursor is bound to (DESIGN §6): never argument values, only their digest. */
export interface CursorBinding {
  backend: string;
  tool: string;
  argsDigest: string;
  principal?: string;
}

/** Signs and checks resumable-read cursors with the configured key and lifetime. */
@Injectable()
export class CursorService {
  constructor(
    @Inject(CURSOR_CONFIG) private readonly config: CursorConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  get ttlSeconds(): number {
    return this.config.ttlSeconds;
  }

  issue(binding: CursorBinding, position: Position): string {
    const expiresAt = Math.floor(this.clock.now() / 1000) + this.config.ttlSeconds;
    return encodeCursor({ ...binding, position, expiresAt }, this.config.secret);
  }

  check(token: string, expected: CursorBinding): { ok: true; position: Position } | { ok: false; reason: CursorRejection } {
    return checkCursor(token, this.config.secret, Math.floor(this.clock.now() / 1000), expected);
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { CLOCK, type Clock } from '../common/clock';
import { CURSOR_CONFIG } from '../config/config.tokens';
import type { CursorConfig } from '../config/config.types';
import { checkCursor, encodeCursor, type CursorBinding, type CursorRejection } from './domain/cursor-codec';
import type { Position } from './domain/position';
import { checkConfirmation, encodeConfirmation, type ConfirmationBinding, type ConfirmationRejection } from './domain/confirmation-codec';
import { USED_CONFIRMATIONS, type UsedConfirmations } from './used-confirmations';

/** How long a write's confirmation token may be used (architecture §11.2). */
export const CONFIRMATION_TTL_SECONDS = 120;

/**
 * How much longer than its token a used id is remembered: replicas' clocks may be this far apart
 * and a replica whose clock is behind still accepts the token.
 */
const CLOCK_ALLOWANCE_MS = 30_000;

/** Why a confirmation was refused: the token's own fault, or the shared record could not be asked. */
export type ConfirmationRefusal = ConfirmationRejection | 'store_unavailable';

/**
 * Signs and checks resumable-read cursors with the configured key and lifetime, and the
 * single-use confirmation tokens of writes with the same key.
 */
@Injectable()
export class CursorService {
  constructor(
    @Inject(CURSOR_CONFIG) private readonly config: CursorConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(USED_CONFIRMATIONS) private readonly used: UsedConfirmations,
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

  /** A confirmation token for this write, and its id (for the audit line). */
  issueConfirmation(binding: ConfirmationBinding): { token: string; id: string } {
    const id = randomBytes(16).toString('base64url');
    const expiresAt = Math.floor(this.clock.now() / 1000) + CONFIRMATION_TTL_SECONDS;
    return { token: encodeConfirmation({ ...binding, id, expiresAt }, this.config.secret), id };
  }

  /**
   * Checks a confirmation token for this write and, when it is good, uses it up: the same token is
   * refused from then on, on this replica and, with the Redis store, on every replica sharing it.
   * `store_unavailable`: the shared record could not be asked; the token was not used up.
   */
  async useConfirmation(token: string, binding: ConfirmationBinding): Promise<{ ok: true; id: string } | { ok: false; reason: ConfirmationRefusal }> {
    const nowMs = this.clock.now();
    const checked = checkConfirmation(token, this.config.secret, Math.floor(nowMs / 1000), binding);
    if (!checked.ok) return checked;
    const ttlMs = checked.claims.expiresAt * 1000 - nowMs + CLOCK_ALLOWANCE_MS;
    switch (await this.used.claim(checked.claims.id, ttlMs)) {
      case 'claimed':
        return { ok: true, id: checked.claims.id };
      case 'used':
        return { ok: false, reason: 'used' };
      case 'unavailable':
        return { ok: false, reason: 'store_unavailable' };
    }
  }
}

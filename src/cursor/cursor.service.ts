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
 * A confirmation token found good for a call and not used yet: what `claimConfirmation` uses up
 * once the call is about to be dispatched.
 */
export interface CheckedConfirmation {
  id: string;
  expiresAt: number;
}

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

  /**
   * A confirmation token for this write, and its id (for the audit line), issued under the record
   * of used ids that will know whether it was used (its scope).
   */
  issueConfirmation(binding: ConfirmationBinding): { token: string; id: string } {
    const id = randomBytes(16).toString('base64url');
    const expiresAt = Math.floor(this.clock.now() / 1000) + CONFIRMATION_TTL_SECONDS;
    return { token: encodeConfirmation({ ...binding, id, expiresAt, scope: this.used.scope }, this.config.secret), id };
  }

  /**
   * Checks a confirmation token for this write, using nothing up: signed here, for this call, not
   * expired, issued under this record of used ids, and not used yet. The call then takes its
   * rate-limit token and the backend's state is checked; only {@link claimConfirmation}, right
   * before dispatch, uses the token up, so a refusal on the way leaves it good.
   * `store_unavailable`: the shared record could not be asked.
   */
  async checkConfirmation(
    token: string,
    binding: ConfirmationBinding,
  ): Promise<{ ok: true; confirmation: CheckedConfirmation } | { ok: false; reason: ConfirmationRefusal }> {
    const checked = checkConfirmation(token, this.config.secret, Math.floor(this.clock.now() / 1000), binding, this.used.scope);
    if (!checked.ok) return checked;
    switch (await this.used.lookup(checked.claims.id)) {
      case 'unused':
        return { ok: true, confirmation: { id: checked.claims.id, expiresAt: checked.claims.expiresAt } };
      case 'used':
        return { ok: false, reason: 'used' };
      case 'unavailable':
        return { ok: false, reason: 'store_unavailable' };
    }
  }

  /**
   * Uses up a checked confirmation, atomically: of two calls that carry the same token at once,
   * one claims it and the other reads `used`. From then on the token is refused, by this process
   * and, with the Redis record, by every replica sharing it. It is still good until its expiry
   * (checked before), so the claim is kept that long and a margin for replica clocks.
   */
  async claimConfirmation(confirmation: CheckedConfirmation): Promise<{ ok: true } | { ok: false; reason: 'used' | 'store_unavailable' }> {
    const ttlMs = confirmation.expiresAt * 1000 - this.clock.now() + CLOCK_ALLOWANCE_MS;
    switch (await this.used.claim(confirmation.id, ttlMs)) {
      case 'claimed':
        return { ok: true };
      case 'used':
        return { ok: false, reason: 'used' };
      case 'unavailable':
        return { ok: false, reason: 'store_unavailable' };
    }
  }
}

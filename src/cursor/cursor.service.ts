import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { CLOCK, type Clock } from '../common/clock';
import { CURSOR_CONFIG } from '../config/config.tokens';
import type { CursorConfig } from '../config/config.types';
import { checkCursor, encodeCursor, type CursorRejection } from './domain/cursor-codec';
import type { Position } from './domain/bounding';
import { checkConfirmation, encodeConfirmation, type ConfirmationBinding, type ConfirmationRejection } from './domain/confirmation-codec';

/** How long a write's confirmation token may be used (issue 14). */
export const CONFIRMATION_TTL_SECONDS = 120;

/** What a cursor is bound to (architecture §6): never argument values, only their digest. */
export interface CursorBinding {
  backend: string;
  tool: string;
  argsDigest: string;
  principal?: string;
}

/**
 * Signs and checks resumable-read cursors with the configured key and lifetime, and the
 * single-use confirmation tokens of writes with the same key.
 */
@Injectable()
export class CursorService {
  /** Confirmation ids already used, with their expiry (Unix seconds): a used token is refused until then. */
  private readonly usedConfirmations = new Map<string, number>();

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

  /** A confirmation token for this write, and its id (for the audit line). */
  issueConfirmation(binding: ConfirmationBinding): { token: string; id: string } {
    const id = randomBytes(16).toString('base64url');
    const expiresAt = Math.floor(this.clock.now() / 1000) + CONFIRMATION_TTL_SECONDS;
    return { token: encodeConfirmation({ ...binding, id, expiresAt }, this.config.secret), id };
  }

  /**
   * Checks a confirmation token for this write and, when it is good, uses it up: the same token is
   * refused from then on. Used ids are kept in this process until they expire, so single use holds
   * per replica (a token is issued and used by one client talking to one router, as a rule).
   */
  useConfirmation(token: string, binding: ConfirmationBinding): { ok: true; id: string } | { ok: false; reason: ConfirmationRejection } {
    const now = Math.floor(this.clock.now() / 1000);
    for (const [id, expiresAt] of this.usedConfirmations) if (expiresAt <= now) this.usedConfirmations.delete(id);
    const checked = checkConfirmation(token, this.config.secret, now, binding);
    if (!checked.ok) return checked;
    if (this.usedConfirmations.has(checked.claims.id)) return { ok: false, reason: 'used' };
    this.usedConfirmations.set(checked.claims.id, checked.claims.expiresAt);
    return { ok: true, id: checked.claims.id };
  }
}

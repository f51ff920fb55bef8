import { randomBytes } from 'node:crypto';
import type { Clock } from '../common/clock';
import type { ClaimResult, LookupResult, UsedConfirmations } from './used-confirmations';

/**
 * Used confirmation ids in this process, each kept until its token could no longer be accepted.
 * The record dies with the process, so it vouches only for the tokens this process issued: its
 * scope is random per instance, and a token from before a restart (or from another replica) is
 * refused as foreign rather than accepted by a record that never saw it used.
 */
export class MemoryUsedConfirmations implements UsedConfirmations {
  readonly scope = `process:${randomBytes(12).toString('base64url')}`;
  /** Id → the time (ms) from which it may be forgotten. */
  private readonly used = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  lookup(id: string): Promise<LookupResult> {
    const until = this.used.get(id);
    return Promise.resolve(until !== undefined && until > this.clock.now() ? 'used' : 'unused');
  }

  claim(id: string, ttlMs: number): Promise<ClaimResult> {
    const now = this.clock.now();
    for (const [known, untilMs] of this.used) if (untilMs <= now) this.used.delete(known);
    if (this.used.has(id)) return Promise.resolve('used');
    this.used.set(id, now + ttlMs);
    return Promise.resolve('claimed');
  }
}

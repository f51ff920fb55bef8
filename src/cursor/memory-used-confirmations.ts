import type { Clock } from '../common/clock';
import type { ClaimResult, UsedConfirmations } from './used-confirmations';

/** Used confirmation ids in this process, each kept until its token could no longer be accepted. */
export class MemoryUsedConfirmations implements UsedConfirmations {
  /** Id → the time (ms) from which it may be forgotten. */
  private readonly used = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  claim(id: string, ttlMs: number): Promise<ClaimResult> {
    const now = this.clock.now();
    for (const [known, untilMs] of this.used) if (untilMs <= now) this.used.delete(known);
    if (this.used.has(id)) return Promise.resolve('used');
    this.used.set(id, now + ttlMs);
    return Promise.resolve('claimed');
  }
}

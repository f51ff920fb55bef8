import { relistDelayMs } from '../domain/modern-protocol';

/**
 * The background re-list of a 2026-07-28 backend (docs/backend-eras.md "`ttlMs` as a re-list
 * schedule"): one timer per channel, set from the last listing's `ttlMs` by `relistDelayMs`, whose
 * expiry tells the supervisor the listing went stale. Unref'd: it never keeps the router alive.
 */
export class RelistTimer {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly onStale: () => void,
    private readonly random: () => number = Math.random,
  ) {}

  /** Replaces any pending re-list with the one `ttlMs` asks for (none while change notifications are the signal). */
  schedule(ttlMs: number, listening: boolean): void {
    this.stop();
    const delay = relistDelayMs(ttlMs, listening, this.random());
    if (delay === undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.onStale();
    }, delay);
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}

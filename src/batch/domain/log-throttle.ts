/** What a throttle says about one event: write it (with how many were held back since), or not. */
export type ThrottleVerdict = { write: true; suppressed: number } | { write: false };

interface Window {
  startedMs: number;
  suppressed: number;
}

/**
 * At most one log line per key per window: a broken backend failing every call must not flood the
 * log, yet the first failure of each kind is seen at once and the count of the held-back ones comes
 * with the next line written. Pure: the time comes in as an argument. Keys are closed sets
 * (configured backend × failure code), so the map stays small.
 */
export class LogThrottle {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly windowMs: number) {}

  check(key: string, nowMs: number): ThrottleVerdict {
    const window = this.windows.get(key);
    if (window && nowMs - window.startedMs < this.windowMs) {
      window.suppressed++;
      return { write: false };
    }
    this.windows.set(key, { startedMs: nowMs, suppressed: 0 });
    return { write: true, suppressed: window?.suppressed ?? 0 };
  }
}

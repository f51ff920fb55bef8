import { outsideRequest } from '../common/request-context';

export interface CoalescingOptions {
  /** The delay before a run is at least this many times the last run's duration. */
  spacingFactor: number;
  /** The delay never grows past this, so a change still lands. */
  maxDelayMs: number;
  now: () => number;
}

const DEFAULT_OPTIONS: CoalescingOptions = { spacingFactor: 5, maxDelayMs: 30_000, now: () => performance.now() };

/**
 * Runs an async task a delay after it is asked for, folding every request that arrives meanwhile
 * into that one run, never running it twice at once, and running it once more after a run if it
 * was asked for during it. The delay is the configured one, or `spacingFactor` times the last run's
 * duration if that is longer: a storm of `tools/list_changed` notifications from a backend whose
 * catalog is costly to fetch and index takes at most 1/(1 + factor) of the time, and the last
 * notification is never lost.
 */
export class CoalescingRunner {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private stopped = false;
  private lastRunMs = 0;
  private readonly options: CoalescingOptions;

  constructor(
    private readonly delayMs: number,
    private readonly task: () => Promise<void>,
    options: Partial<CoalescingOptions> = {},
  ) {
    this.options = { ...DEFAULT_OPTIONS, ...options };
  }

  /** The delay the next run waits for. */
  get nextDelayMs(): number {
    return Math.min(this.options.maxDelayMs, Math.max(this.delayMs, this.options.spacingFactor * this.lastRunMs));
  }

  request(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    // Not reset by later requests: a steady storm must not postpone the refresh forever.
    // Outside the context of whatever asked (a call's, when a notification arrives mid-call).
    this.timer ??= outsideRequest(() => setTimeout(() => void this.run(), this.nextDelayMs));
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.running = true;
    const started = this.options.now();
    try {
      await this.task();
    } finally {
      this.lastRunMs = this.options.now() - started;
      this.running = false;
      if (this.again) {
        this.again = false;
        this.request();
      }
    }
  }
}

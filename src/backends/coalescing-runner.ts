/**
 * Runs an async task a fixed delay after it is asked for, folding every request that arrives
 * meanwhile into that one run, never running it twice at once, and running it once more after a
 * run if it was asked for during it. A storm of `tools/list_changed` notifications so costs at most
 * one `tools/list` per (delay + run time), and the last notification is never lost.
 */
export class CoalescingRunner {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private stopped = false;

  constructor(
    private readonly delayMs: number,
    private readonly task: () => Promise<void>,
  ) {}

  request(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    // Not reset by later requests: a steady storm must not postpone the refresh forever.
    this.timer ??= setTimeout(() => void this.run(), this.delayMs);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.running = true;
    try {
      await this.task();
    } finally {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.request();
      }
    }
  }
}

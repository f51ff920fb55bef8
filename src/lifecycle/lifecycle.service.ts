import { Inject, Injectable, Logger } from '@nestjs/common';
import { LIFECYCLE_CONFIG } from '../config/config.tokens';
import type { LifecycleConfig } from '../config/config.types';

/** How a drain ended: everything finished, or the deadline passed with `inFlight` still running. */
export interface DrainOutcome {
  idle: boolean;
  inFlight: number;
}

/**
 * After the drain deadline, how long the requests still in flight get to send the answers their
 * stopped calls produce: a stopped call answers at once, so this only bounds a defect.
 */
export const ANSWER_GRACE_MS = 2_000;

/**
 * The process's serving state for graceful shutdown: whether it is draining, and how many /mcp
 * requests are in flight. Readiness reads `draining`; POST /mcp (mcp/mcp-post.ts) and the drain
 * hook (GET and DELETE) count requests in and out and refuse new ones once draining has begun.
 */
@Injectable()
export class LifecycleService {
  private readonly logger = new Logger(LifecycleService.name);
  private isDraining = false;
  private active = 0;
  private readonly idleWaiters = new Set<() => void>();
  private readonly stop = new AbortController();
  /** Settles each piece of work `untilStopped` watches; the drain deadline settles them all. */
  private readonly stoppable = new Set<() => void>();
  private readonly drainListeners: (() => void)[] = [];

  constructor(@Inject(LIFECYCLE_CONFIG) private readonly config: LifecycleConfig) {}

  get draining(): boolean {
    return this.isDraining;
  }

  get inFlight(): number {
    return this.active;
  }

  /**
   * Aborted at the drain deadline: from then on no call is dispatched, and the calls in flight
   * answer `error` at once instead of waiting for their backends.
   */
  get stopSignal(): AbortSignal {
    return this.stop.signal;
  }

  /**
   * `work`'s outcome, or `stopped()` as soon as the drain deadline passes, whichever comes first;
   * the work left behind is not cancelled. Each piece of work joins one set that the deadline
   * walks, rather than adding and removing a listener on `stopSignal`: on the hot path (every
   * backend call) that costs a third as much.
   */
  untilStopped<T>(work: Promise<T>, stopped: () => T): Promise<T> {
    return this.settleUntilStopped(work, identity, rethrow, stopped);
  }

  /**
   * `onValue` or `onError` of `work`'s outcome, or `stopped()` as soon as the drain deadline passes,
   * whichever comes first: `untilStopped` with the outcome read in the same turn, one promise less
   * than a `then` before it. Once stopped, `onValue` and `onError` still run when the work ends
   * (what they record is still true), but their value is no one's.
   */
  settleUntilStopped<T, U>(work: Promise<T>, onValue: (value: T) => U, onError: (err: unknown) => U, stopped: () => U): Promise<U> {
    if (this.stop.signal.aborted) return Promise.resolve(stopped());
    return new Promise<U>((resolve, reject) => {
      const stop = () => {
        this.stoppable.delete(stop);
        resolve(stopped());
      };
      this.stoppable.add(stop);
      work.then(
        (value) => {
          this.stoppable.delete(stop);
          settle(resolve, reject, onValue, value);
        },
        (err: unknown) => {
          this.stoppable.delete(stop);
          settle(resolve, reject, onError, err);
        },
      );
    });
  }

  /** From now on readiness fails and new work is refused. Idempotent. */
  startDraining(): void {
    if (this.isDraining) return;
    this.isDraining = true;
    this.logger.log({ msg: 'draining', inFlight: this.active, drainTimeoutMs: this.config.drainTimeoutMs });
    for (const listener of this.drainListeners) listener();
  }

  /**
   * Calls `listener` when draining begins: for work that would otherwise last until the drain
   * deadline, such as a stream a client keeps open, to end itself.
   */
  onDraining(listener: () => void): void {
    this.drainListeners.push(listener);
  }

  /**
   * Counts one request in, unless draining. Returns its release (idempotent), or undefined when
   * the request must be refused. One call, so no request slips in between the check and the count.
   */
  tryEnter(): (() => void) | undefined {
    if (this.isDraining) return undefined;
    this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.active--;
      if (this.active === 0) for (const wake of [...this.idleWaiters]) wake();
    };
  }

  /** Resolves true once nothing is in flight, or false when `deadlineMs` passes first. */
  waitForIdle(deadlineMs: number): Promise<boolean> {
    if (this.active === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.idleWaiters.delete(wake);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.idleWaiters.delete(wake);
        resolve(false);
      }, deadlineMs);
      this.idleWaiters.add(wake);
    });
  }

  /**
   * Starts draining and waits for in-flight work up to the configured deadline. If work is still
   * running then, stops it (`stopSignal`, `untilStopped`) and waits up to ANSWER_GRACE_MS for its answers to go out,
   * so every request gets one answer before the process closes.
   */
  async drain(): Promise<DrainOutcome> {
    this.startDraining();
    if (await this.waitForIdle(this.config.drainTimeoutMs)) {
      this.logger.log({ msg: 'drained' });
      return { idle: true, inFlight: 0 };
    }
    this.logger.warn({ msg: 'drain deadline passed: stopping the calls in flight', inFlight: this.active });
    this.stop.abort();
    for (const stop of [...this.stoppable]) stop();
    const answered = await this.waitForIdle(ANSWER_GRACE_MS);
    const outcome = { idle: false, inFlight: this.active };
    if (answered) this.logger.log({ msg: 'drained: stopped calls answered' });
    else this.logger.error({ msg: 'requests still in flight after the drain deadline; closing their connections', inFlight: this.active });
    return outcome;
  }
}

function identity<T>(value: T): T {
  return value;
}

function rethrow(err: unknown): never {
  throw err;
}

/** Resolves with what `read` makes of `input`, or rejects with what it throws. */
function settle<I, U>(resolve: (value: U) => void, reject: (err: unknown) => void, read: (input: I) => U, input: I): void {
  let value: U;
  try {
    value = read(input);
  } catch (err) {
    return reject(err);
  }
  resolve(value);
}

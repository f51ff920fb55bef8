import { outsideRequest } from '../../common/request-context';
import { stringIdOf } from '../domain/wire';

/**
 * How one request reads a message that may be its answer: the value it resolves with, the Error
 * it fails with, or undefined when the message is not its answer (another message on an event
 * stream). `final`: the message can only be this request's answer (an HTTP JSON body, a stdio line
 * carrying its id). `status`: the HTTP status it came with (200 on stdio, which has no status line).
 */
export type AnswerReader<T> = (message: unknown, id: string, final: boolean, status: number) => T | Error | undefined;

export interface RequestTrackerOptions<C> {
  /**
   * Prefix of this tracker's request ids (`c1`, `d1`, …): the SDK client's ids are numbers, so the
   * two never collide on a pipe they share.
   */
  idPrefix: string;
  /** What a request whose deadline passed rejects with. */
  timedOut: (timeoutMs: number) => Error;
  /**
   * A request's deadline passed before its answer: tell the backend, as its transport allows
   * (`notifications/cancelled`, spec "Cancellation"). `context` is what the request was tracked with.
   */
  cancel?: (id: string, context: C) => void;
  /** A request is given up (failed, or past its deadline): free what its transport holds for it. */
  abandon?: (context: C) => void;
}

/** One request in flight. */
interface Pending<T, C> {
  read: AnswerReader<T>;
  // Methods, not function properties: an entry of any T is kept in one map of `Pending<unknown>`.
  resolve(value: T): void;
  reject(err: Error): void;
  /** `performance.now()` past which the request is given up. */
  due: number;
  timeoutMs: number;
  context: C;
  /** Answered or failed: its promise is settled. */
  settled: boolean;
  /** Kept after its answer until `release`: its transport still holds something until then. */
  held: boolean;
}

/**
 * The requests the router has in flight to one backend: their ids, their deadlines and their
 * cancellation, in one place above every transport (as the MCP SDK's `protocol.ts` is above its
 * `transport.ts`). Transports only move messages; a message comes back here, by the request's id on
 * a shared pipe (`route`) or by the HTTP POST it came on (`deliver`), and the request's own reader
 * decides what it means. Past its deadline a request rejects with `timedOut`, its transport's hold
 * is dropped (`abandon`) and the backend is told (`cancel`).
 *
 * Deadlines share one timer, armed for the earliest one: a timer per request cost each call a
 * `Timeout`, its async-context hook and a timer-list insert and removal (the list itself, at one
 * call in flight). The timer keeps the process alive only while a request is tracked, and it
 * runs outside any request's context: it serves every request of the backend.
 */
export class RequestTracker<C = undefined> {
  private readonly pending = new Map<string, Pending<unknown, C>>();
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  /** When the timer fires (`performance.now()`); Infinity while none is armed. */
  private timerDue = Number.POSITIVE_INFINITY;
  /** Bound once, so arming the timer allocates no closure. */
  private readonly sweepBound = () => this.sweep();

  constructor(private readonly options: RequestTrackerOptions<C>) {}

  /** The id of the next request. */
  nextId(): string {
    return `${this.options.idPrefix}${++this.seq}`;
  }

  /**
   * Tracks request `id` (already on its way) until it is answered, fails, or `delayMs` passes;
   * `timeoutMs` is the deadline as the caller names it in the timeout's message. `hold`: the entry
   * and its deadline stay after the answer until `release(id)` (an answer read from an event
   * stream whose socket the stream still holds: a server that never ends it does not hold the
   * socket past the deadline).
   */
  track<T>(id: string, delayMs: number, timeoutMs: number, read: AnswerReader<T>, context: C, hold = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const now = performance.now();
      const entry: Pending<T, C> = { read, resolve, reject, due: now + delayMs, timeoutMs, context, settled: false, held: hold };
      this.pending.set(id, entry);
      if (entry.due < this.timerDue) this.arm(entry.due, now);
      else if (this.pending.size === 1) this.timer?.ref();
    });
  }

  /**
   * A message on a pipe every request shares (stdio): settles the request it answers, found by its
   * id. False when it answers none of ours (a notification, a server request, the SDK client's
   * answer, a late answer to a request given up): the caller passes it on.
   */
  route(message: unknown): boolean {
    const id = stringIdOf(message);
    const entry = id === undefined ? undefined : this.pending.get(id);
    if (id === undefined || !entry || entry.settled) return false;
    const outcome = entry.read(message, id, true, 200);
    if (outcome === undefined) return false;
    this.settle(id, entry, outcome);
    return true;
  }

  /**
   * A message that came on request `id`'s own channel (the answer to its HTTP POST). True once the
   * request wants nothing more of that channel (answered, failed, or no longer waited for).
   */
  deliver(id: string, message: unknown, final: boolean, status: number): boolean {
    const entry = this.pending.get(id);
    if (!entry || entry.settled) return true;
    const outcome = entry.read(message, id, final, status);
    if (outcome === undefined) return false;
    this.settle(id, entry, outcome);
    return true;
  }

  /** Fails request `id`, if it still waits. */
  fail(id: string, err: Error): void {
    const entry = this.pending.get(id);
    if (entry && !entry.settled) this.settle(id, entry, err);
  }

  /** Request `id`'s transport holds nothing more for it: an answered request is forgotten. */
  release(id: string): void {
    const entry = this.pending.get(id);
    if (entry?.settled) this.forget(id);
  }

  /** Whether request `id` still waits for its answer. */
  waits(id: string): boolean {
    return this.pending.get(id)?.settled === false;
  }

  /** Fails every request still waiting (the pipe is gone). */
  failAll(err: Error): void {
    for (const [id, entry] of [...this.pending]) if (!entry.settled) this.settle(id, entry, err);
  }

  private settle(id: string, entry: Pending<unknown, C>, outcome: unknown): void {
    entry.settled = true;
    if (outcome instanceof Error) {
      this.forget(id);
      this.options.abandon?.(entry.context);
      entry.reject(outcome);
      return;
    }
    if (!entry.held) this.forget(id);
    entry.resolve(outcome);
  }

  private forget(id: string): void {
    this.pending.delete(id);
    // Nothing tracked: the armed timer no longer keeps the process alive (it fires, finds nothing).
    if (this.pending.size === 0) this.timer?.unref();
  }

  /** (Re)arms the one timer for `due`, outside any request's context. */
  private arm(due: number, now: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = outsideRequest(() => setTimeout(this.sweepBound, Math.max(1, Math.ceil(due - now))));
  }

  /** Gives up every request past its deadline, then arms the timer for the next deadline. */
  private sweep(): void {
    this.timer = undefined;
    this.timerDue = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const [id, entry] of [...this.pending]) {
      if (entry.due <= now) this.expire(id, entry);
      else if (entry.due < next) next = entry.due;
    }
    if (this.pending.size > 0 && next < this.timerDue) this.arm(next, now);
  }

  private expire(id: string, entry: Pending<unknown, C>): void {
    this.forget(id);
    this.options.abandon?.(entry.context);
    if (entry.settled) return;
    entry.settled = true;
    entry.reject(this.options.timedOut(entry.timeoutMs));
    this.options.cancel?.(id, entry.context);
  }
}

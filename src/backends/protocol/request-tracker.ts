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
  timer: NodeJS.Timeout;
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
 */
export class RequestTracker<C = undefined> {
  private readonly pending = new Map<string, Pending<unknown, C>>();
  private seq = 0;
  /** Bound once, so no request allocates a closure for its timer. */
  private readonly expireBound = (id: string) => this.expire(id);

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
      const timer = setTimeout(this.expireBound, delayMs, id);
      const entry: Pending<T, C> = { read, resolve, reject, timer, timeoutMs, context, settled: false, held: hold };
      this.pending.set(id, entry);
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
    if (entry?.settled) this.forget(id, entry);
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
      this.forget(id, entry);
      this.options.abandon?.(entry.context);
      entry.reject(outcome);
      return;
    }
    if (!entry.held) this.forget(id, entry);
    entry.resolve(outcome);
  }

  private forget(id: string, entry: Pending<unknown, C>): void {
    clearTimeout(entry.timer);
    this.pending.delete(id);
  }

  private expire(id: string): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    this.options.abandon?.(entry.context);
    if (entry.settled) return;
    entry.settled = true;
    entry.reject(this.options.timedOut(entry.timeoutMs));
    this.options.cancel?.(id, entry.context);
  }
}

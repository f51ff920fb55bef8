import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown } from '@nestjs/common';
import { CLOCK, systemClock, type Clock } from '../common/clock';
import { AUDIT_SINK, type AuditSink } from './audit.sink';
import {
  auditLine,
  authFailureLine,
  reloadLine,
  trustLine,
  type AuditEvent,
  type AuthFailureEvent,
  type ReloadAuditEvent,
  type TrustAuditEvent,
} from './domain/audit-line';

/** Failures are logged at most this often: a full disk must not turn into a log line per call. */
const ERROR_LOG_INTERVAL_MS = 60_000;
/** Buffered audit text (UTF-16 code units) past which it is written at once, not at the end of the turn. */
const FLUSH_CHARS = 64 * 1024;

/**
 * The audit trail (architecture §10): one JSON line per backend call and per refused call, never
 * argument values. Recording never throws into a call and never waits for I/O; a failing sink is
 * logged (rate-limited) and the call goes on. The lines of one event-loop turn go to the sink in
 * one write: under load many calls finish per turn, and each write to stdout is a system call
 * (synchronous for pipes and files), which cost more than the rest of the audit here.
 */
@Injectable()
export class AuditService implements OnApplicationShutdown {
  private readonly logger = new Logger(AuditService.name);
  private lastErrorLogMs = Number.NEGATIVE_INFINITY;
  private failures = 0;
  private pending: string[] = [];
  private pendingChars = 0;
  private flushScheduled = false;

  constructor(
    @Inject(AUDIT_SINK) private readonly sink: AuditSink,
    @Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock,
  ) {
    sink.onError = (err) => this.failed(err);
  }

  /** Records one read call: a backend call, or a call refused before reaching one. */
  record(event: AuditEvent): void {
    // Formatted here rather than through `write`'s closure: this runs for every call.
    let text: string;
    try {
      text = auditLine(event, this.clock.now());
    } catch (err) {
      return this.failed(err instanceof Error ? err : new Error(String(err)));
    }
    this.push(text);
  }

  /** Records a request refused at authentication (no principal, so no call fields). */
  recordAuthFailure(event: AuthFailureEvent): void {
    this.write(() => authFailureLine(event, this.clock.now()));
  }

  /** Records a tool quarantined, approved or released by the trust pins. */
  recordTrust(event: TrustAuditEvent): void {
    this.write(() => trustLine(event, this.clock.now()));
  }

  /** Records a config reload that was applied, naming what it changed. */
  recordReload(event: ReloadAuditEvent): void {
    this.write(() => reloadLine(event, this.clock.now()));
  }

  /** Last of the shutdown hooks: by then the drain has finished every call, so every line is in. */
  async onApplicationShutdown(): Promise<void> {
    this.flush();
    await this.sink.close();
    if (this.failures > 0) this.logger.warn({ msg: 'audit lines lost', failures: this.failures });
  }

  private write(line: () => string): void {
    let text: string;
    try {
      text = line();
    } catch (err) {
      return this.failed(err instanceof Error ? err : new Error(String(err)));
    }
    this.push(text);
  }

  /** Buffers one line; the turn's lines go to the sink together. */
  private push(text: string): void {
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= FLUSH_CHARS) return this.flush();
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  /** Hands every buffered line to the sink in one write. */
  private flush(): void {
    this.flushScheduled = false;
    if (this.pending.length === 0) return;
    const lines = this.pending.join('\n');
    this.pending = [];
    this.pendingChars = 0;
    try {
      this.sink.write(lines);
    } catch (err) {
      this.failed(err instanceof Error ? err : new Error(String(err)));
    }
  }

  private failed(err: Error): void {
    this.failures++;
    const now = this.clock.now();
    if (now - this.lastErrorLogMs < ERROR_LOG_INTERVAL_MS) return;
    this.lastErrorLogMs = now;
    this.logger.error({ msg: 'audit write failed', error: err.message, failuresSoFar: this.failures });
  }
}

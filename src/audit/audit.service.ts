import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown } from '@nestjs/common';
import { CLOCK, systemClock, type Clock } from '../common/clock';
import { AUDIT_SINK, type AuditSink } from './audit.sink';
import { auditLine, authFailureLine, type AuditEvent, type AuthFailureEvent } from './domain/audit-line';

/** Failures are logged at most this often: a full disk must not turn into a log line per call. */
const ERROR_LOG_INTERVAL_MS = 60_000;

/**
 * The audit trail (DESIGN §10): one JSON line per backend call and per refused call, never
 * argument values. Recording never throws into a call and never waits for I/O; a failing sink is
 * logged (rate-limited) and the call goes on.
 */
@Injectable()
export class AuditService implements OnApplicationShutdown {
  private readonly logger = new Logger(AuditService.name);
  private lastErrorLogMs = Number.NEGATIVE_INFINITY;
  private failures = 0;

  constructor(
    @Inject(AUDIT_SINK) private readonly sink: AuditSink,
    @Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock,
  ) {
    sink.onError = (err) => this.failed(err);
  }

  /** Records one read call: a backend call, or a call refused before reaching one. */
  record(event: AuditEvent): void {
    this.write(() => auditLine(event, this.clock.now()));
  }

  /** Records a request refused at authentication (no principal, so no call fields). */
  recordAuthFailure(event: AuthFailureEvent): void {
    this.write(() => authFailureLine(event, this.clock.now()));
  }

  /** Last of the shutdown hooks: by then the drain has finished every call, so every line is in. */
  async onApplicationShutdown(): Promise<void> {
    await this.sink.close();
    if (this.failures > 0) this.logger.warn({ msg: 'audit lines lost', failures: this.failures });
  }

  private write(line: () => string): void {
    try {
      this.sink.write(line());
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

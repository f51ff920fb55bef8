/**
 * Where audit lines go. `write` takes one or more lines joined by newlines, without the last
 * newline, and adds it. `write` never throws for an I/O failure: it reports it to `onError` (the
 * audit log must never fail a call, architecture §10); `close` flushes what is buffered.
 */
export interface AuditSink {
  write(line: string): void;
  close(): Promise<void>;
  /** Called with each asynchronous write failure; set by the AuditService. */
  onError?: (err: Error) => void;
}

export const AUDIT_SINK = Symbol('centralmcp-router:audit-sink');

import { createWriteStream, openSync, type WriteStream } from 'node:fs';
import { errnoCode } from '../common/thrown';
import { ConfigError } from '../config/config.errors';
import type { AuditSink } from './audit.sink';

/**
 * Audit lines appended to a file: opened once at boot (a path that cannot be opened stops the boot,
 * naming `audit.path`, rather than losing the audit trail quietly), written through one stream,
 * flushed and closed at shutdown. Owner-only permissions: the file names principals and tools.
 */
export class FileAuditSink implements AuditSink {
  onError?: (err: Error) => void;
  private closed = false;

  private constructor(private readonly stream: WriteStream) {
    stream.on('error', (err) => this.onError?.(err));
  }

  /** Opens `path` for appending, creating it (mode 0600) if absent. Throws ConfigError when it cannot. */
  static open(path: string): FileAuditSink {
    let fd: number;
    try {
      fd = openSync(path, 'a', 0o600);
    } catch (err) {
      throw new ConfigError([`audit.path: cannot open ${path} for appending (${errnoCode(err) ?? 'error'})`]);
    }
    return new FileAuditSink(createWriteStream('', { fd, flags: 'a', autoClose: true }));
  }

  write(line: string): void {
    if (this.closed) {
      this.onError?.(new Error('audit file already closed'));
      return;
    }
    this.stream.write(`${line}\n`);
  }

  /** Flushes buffered lines and closes the file; idempotent. */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return new Promise((resolve) => {
      // A failed flush is reported through onError by the 'error' listener; shutdown goes on.
      this.stream.once('error', () => resolve());
      this.stream.end(() => resolve());
    });
  }
}

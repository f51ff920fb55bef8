import type { AuditSink } from './audit.sink';

/**
 * Audit lines on stdout, beside the JSON logs (told apart by their `kind` field), for a cluster's
 * log collector. Stdout is the process's; closing it is not ours to do.
 */
export class StdoutAuditSink implements AuditSink {
  onError?: (err: Error) => void;

  constructor(private readonly out: NodeJS.WritableStream = process.stdout) {}

  write(line: string): void {
    this.out.write(`${line}\n`);
  }

  async close(): Promise<void> {}
}

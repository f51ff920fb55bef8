import type { LineWriter } from './stdio-front-end';

/**
 * Takes stdout for JSON-RPC alone. From here on whatever else writes to `process.stdout` (the JSON
 * logger, the `stdout` audit sink, a library's `console.log`) lands on stderr instead, so no stray
 * line can corrupt the client's stream; the writer returned is the only way left to stdout.
 * A client that goes away makes stdout fail (EPIPE): its stdin closes too, which ends the process.
 */
export function claimStdout(stdout: NodeJS.WriteStream = process.stdout, stderr: NodeJS.WriteStream = process.stderr): LineWriter {
  const write = stdout.write.bind(stdout);
  stdout.write = ((...args: Parameters<typeof stderr.write>) => stderr.write(...args)) as typeof stdout.write;
  stdout.on('error', () => undefined);
  return (line) => new Promise((resolve) => write(`${line}\n`, () => resolve()));
}

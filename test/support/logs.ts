import type { LogLine } from './router-process';

/** The router's JSON log lines written to stdout while a test runs (kept out of the test output). */
export function captureLogs(): { lines: () => LogLine[]; stop: () => void } {
  const lines: string[] = [];
  const realWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (text.startsWith('{"level"')) {
      lines.push(text);
      return true;
    }
    return (realWrite as (...a: unknown[]) => boolean)(chunk, ...rest);
  };
  return {
    lines: () =>
      lines
        .flatMap((l) => l.split('\n'))
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as LogLine),
    stop: () => {
      process.stdout.write = realWrite;
    },
  };
}

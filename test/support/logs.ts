/** The router's JSON log lines written to stdout while a test runs (kept out of the test output). */
export function captureLogs(): { lines: () => Record<string, any>[]; stop: () => void } {
  const lines: string[] = [];
  const realWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (text.startsWith('{"level"')) {
      lines.push(text);
      return true;
    }
    return (realWrite as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  return {
    lines: () => lines.flatMap((l) => l.split('\n')).filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, any>),
    stop: () => {
      process.stdout.write = realWrite;
    },
  };
}

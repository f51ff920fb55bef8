import { Counter, type Registry } from 'prom-client';

/** What a mirrored counter is: a one-label counter over counts a service keeps itself. */
export interface MirroredCounterConfig<L extends string> {
  name: string;
  help: string;
  /** The one label; its values come from a closed set. */
  labelName: L;
  /** The label values whose series exist at 0 from the start, so `rate()` sees the first event. */
  zeroed: readonly string[];
  /** The owner's counts since it started, by label value, read at each scrape. */
  read: () => Iterable<readonly [string, number]>;
  registers: Registry[];
}

/**
 * A Prometheus counter over counts another service keeps (reconnects, failures, fallbacks): the
 * service only counts, knowing nothing of metrics, and each scrape adds what grew since the last
 * one. So the series is a real counter, which `rate()` and `increase()` read across a process
 * restart, and it never goes down even if an owner's count did.
 */
export function mirroredCounter<L extends string>(config: MirroredCounterConfig<L>): Counter<L> {
  const seen = new Map<string, number>();
  const labels = (value: string): Partial<Record<L, string>> => {
    const set: Partial<Record<L, string>> = {};
    set[config.labelName] = value;
    return set;
  };
  const counter: Counter<L> = new Counter({
    name: config.name,
    help: config.help,
    labelNames: [config.labelName],
    registers: config.registers,
    collect: () => {
      for (const [value, count] of config.read()) {
        const reported = seen.get(value) ?? 0;
        if (count > reported) counter.inc(labels(value), count - reported);
        seen.set(value, Math.max(reported, count));
      }
    },
  });
  for (const value of config.zeroed) counter.inc(labels(value), 0);
  return counter;
}

import { Counter, type Registry } from 'prom-client';

/** What a `GridCounter` is: a counter whose two labels each take values from a closed list. */
export interface GridCounterConfig<R extends string, C extends string> {
  name: string;
  help: string;
  labelNames: readonly [R, C];
  rows: readonly string[];
  columns: readonly string[];
  registers: Registry[];
}

/**
 * A Prometheus counter over a closed grid of two labels, counted in a plain array: an event is one
 * increment at two indices, with no label object, hash or allocation (prom-client's `inc` builds
 * a label hash on every call). Each scrape hands prom-client what grew since the last one, as the
 * restart counter does. Every cell's series exists at 0 from the start, so `rate()` sees the
 * first event. An index outside the grid is not counted.
 */
export class GridCounter<R extends string, C extends string> {
  private readonly counts: Float64Array;
  private readonly reported: Float64Array;
  private readonly width: number;

  constructor(config: GridCounterConfig<R, C>) {
    const { rows, columns, labelNames } = config;
    this.width = columns.length;
    this.counts = new Float64Array(rows.length * columns.length);
    this.reported = new Float64Array(rows.length * columns.length);
    const [rowLabel, columnLabel] = labelNames;
    const labelsOf = (cell: number): Partial<Record<R | C, string>> => {
      const set: Partial<Record<R | C, string>> = {};
      set[rowLabel] = rows[Math.floor(cell / this.width)];
      set[columnLabel] = columns[cell % this.width];
      return set;
    };
    const counter: Counter<R | C> = new Counter({
      name: config.name,
      help: config.help,
      labelNames: [rowLabel, columnLabel],
      registers: config.registers,
      collect: () => {
        for (let cell = 0; cell < this.counts.length; cell++) {
          const grown = this.counts[cell] - this.reported[cell];
          if (grown > 0) counter.inc(labelsOf(cell), grown);
          this.reported[cell] = this.counts[cell];
        }
      },
    });
    for (let cell = 0; cell < this.counts.length; cell++) counter.inc(labelsOf(cell), 0);
  }

  /** One event at `rows[row]`, `columns[column]`. */
  inc(row: number, column: number): void {
    if (column >= 0 && column < this.width) this.counts[row * this.width + column]++;
  }
}

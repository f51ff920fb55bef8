/**
 * A table of little-endian uint32 read a run at a time: the lexicon's WordNet relations
 * (`wordnet.rel.u32`, 5 MB). The router reads them from the file on demand (`discovery/lexicon.ts`):
 * a word's relations are a few runs, read once per word and kept by the search, and the file then
 * stays in the OS's page cache, shared and reclaimable, instead of in the process's resident
 * memory. Held in memory, they serve the tests' small lexicons.
 */
export interface U32Table {
  /** Elements in the table. */
  readonly length: number;
  /** Elements `start .. start + count`, as a fresh array; throws past the end. */
  read(start: number, count: number): Uint32Array;
}

/** A table held in memory. */
export function u32InMemory(values: Uint32Array): U32Table {
  return {
    length: values.length,
    read(start, count) {
      if (start < 0 || count < 0 || start + count > values.length) throw new RangeError(`elements ${start}..${start + count} of ${values.length}`);
      return values.slice(start, start + count);
    },
  };
}

/** Elements `start .. start + length` of `table`, as a table of their own. */
export function u32Part(table: U32Table, start: number, length: number): U32Table {
  return {
    length,
    read(at, count) {
      if (at < 0 || count < 0 || at + count > length) throw new RangeError(`elements ${at}..${at + count} of ${length}`);
      return table.read(start + at, count);
    },
  };
}

/** Element `i` of `table`. */
export function u32At(table: U32Table, i: number): number {
  return table.read(i, 1)[0];
}

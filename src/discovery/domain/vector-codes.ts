/**
 * The int8 codes of the lexicon's vectors (`vectors.i8`, rows × dims), read one row at a time.
 * The router reads them from the file on demand (`discovery/lexicon.ts`): the search needs the
 * rows of the catalog's words and of a request's words, never all 100,000, and the file's 10 MB
 * then stay in the OS's page cache, shared and reclaimable, instead of in the process's resident
 * memory. Held in memory, they serve the tests' small lexicons.
 */
export interface VectorCodes {
  /** Rows × dims. */
  readonly length: number;
  /** Row `r`'s codes, as many as `into` holds (dims), written into `into`; returns it. */
  row(r: number, into: Int8Array): Int8Array;
}

/** Codes held in memory. */
export function codesInMemory(codes: Int8Array): VectorCodes {
  return {
    length: codes.length,
    row(r, into) {
      into.set(codes.subarray(r * into.length, (r + 1) * into.length));
      return into;
    },
  };
}

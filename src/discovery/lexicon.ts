import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import { join, resolve } from 'node:path';
import { errnoCode, messageOf } from '../common/thrown';
import { decodeLexicon, type Lexicon } from './domain/semantic';
import type { U32Table } from './domain/u32-table';
import type { VectorCodes } from './domain/vector-codes';

/**
 * Where `scripts/prepare-lexicon.mjs` writes the offline lexicon: `data/lexicon/` at the project
 * root (this file runs from `dist/src/discovery/`), in a clone and in the image alike.
 */
export const DEFAULT_LEXICON_DIR = resolve(__dirname, '..', '..', '..', 'data', 'lexicon');

/** The lexicon's files are missing or unreadable; the message says how to prepare them. */
export class LexiconUnavailableError extends Error {
  constructor(
    readonly dir: string,
    reason: string,
  ) {
    super(
      `offline lexicon unavailable in ${dir}: ${reason}; prepare it with \`npm run prepare:lexicon\` (scripts/prepare-lexicon.mjs, also run by \`npm ci\`)`,
    );
    this.name = 'LexiconUnavailableError';
  }
}

/**
 * Reads and decodes the prepared lexicon (README, "Offline lexicon"), synchronously: it is read
 * once at boot, about 3 MB; the vectors' codes (10 MB more) are read a row at a time when the
 * search asks for one (`domain/vector-codes.ts`), and the WordNet relations (5 MB) a word's runs
 * at a time (`domain/u32-table.ts`). Throws {@link LexiconUnavailableError} when the files are missing,
 * unreadable or from another format version.
 */
export function loadLexicon(dir: string = DEFAULT_LEXICON_DIR): Lexicon {
  // Immutable once decoded: one copy per process, however many routers it starts (the tests start
  // dozens), instead of 50 MB and half a second each.
  const loaded = LOADED.get(dir);
  if (loaded !== undefined) return loaded;
  const lexicon = readLexicon(dir);
  LOADED.set(dir, lexicon);
  return lexicon;
}

const LOADED = new Map<string, Lexicon>();

function readLexicon(dir: string): Lexicon {
  const read = (name: string): Buffer => {
    try {
      return readFileSync(join(dir, name));
    } catch (err) {
      throw new LexiconUnavailableError(dir, `cannot read ${name} (${errnoCode(err) ?? String(err)})`);
    }
  };
  let manifest: unknown;
  try {
    manifest = JSON.parse(read('manifest.json').toString('utf8'));
  } catch (err) {
    if (err instanceof LexiconUnavailableError) throw err;
    throw new LexiconUnavailableError(dir, 'manifest.json is not JSON');
  }
  // In the files' order, so that the first one missing is the one named.
  const vectorWords = read('vectors.words.txt');
  const opened: OnDisk[] = [];
  try {
    const codes = onDisk(dir, 'vectors.i8');
    opened.push(codes);
    const vectorScales = read('vectors.scale.f32');
    const lemmas = read('wordnet.lemmas.txt');
    const relations = onDisk(dir, 'wordnet.rel.u32');
    opened.push(relations);
    return decodeLexicon({ manifest, vectorWords, vectorCodes: codesOf(codes), vectorScales, lemmas, relations: u32sOf(relations) });
  } catch (err) {
    for (const file of opened) file.close();
    if (err instanceof LexiconUnavailableError) throw err;
    throw new LexiconUnavailableError(dir, messageOf(err));
  }
}

/**
 * A lexicon file read where the search asks, through a descriptor kept open for the life of the
 * process (the lexicon is loaded once per process). A read costs one `pread` from the page cache,
 * about a microsecond; a file shortened after boot fails the read that reaches past its end.
 */
interface OnDisk {
  readonly dir: string;
  readonly bytes: number;
  /** Fills `into` from byte `position`; false when the file ends before. */
  readAt(into: Int8Array | Uint32Array, position: number): boolean;
  close(): void;
}

function onDisk(dir: string, name: string): OnDisk {
  let fd: number | undefined;
  let bytes: number;
  try {
    fd = openSync(join(dir, name), 'r');
    bytes = fstatSync(fd).size;
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    throw new LexiconUnavailableError(dir, `cannot read ${name} (${errnoCode(err) ?? String(err)})`);
  }
  const open = fd;
  return {
    dir,
    bytes,
    readAt: (into, position) => into.byteLength === 0 || readSync(open, into, 0, into.byteLength, position) === into.byteLength,
    close: () => closeSync(open),
  };
}

/** `vectors.i8` a row at a time. */
function codesOf(file: OnDisk): VectorCodes {
  return {
    length: file.bytes,
    row(r, into) {
      if (!file.readAt(into, r * into.length)) throw new LexiconUnavailableError(file.dir, `vectors.i8 has no row ${r}`);
      return into;
    },
  };
}

/** `wordnet.rel.u32` a run of elements at a time (little-endian, as the machine: `decodeLexicon` checks). */
function u32sOf(file: OnDisk): U32Table {
  return {
    length: Math.floor(file.bytes / 4),
    read(start, count) {
      const into = new Uint32Array(count);
      if (start < 0 || !file.readAt(into, start * 4)) throw new LexiconUnavailableError(file.dir, `wordnet.rel.u32 has no elements ${start}..${start + count}`);
      return into;
    },
  };
}

/** The offline lexicon for `find_tool`'s ranking, or none (then the ranking is by words only). */
export const LEXICON = Symbol('centralmcp-router:lexicon');

/**
 * Loads the lexicon for the search at boot. Missing files (an install that skipped its scripts)
 * do not stop the router: `find_tool` still ranks by the words of the catalog, and one warning
 * says what is lost and how to prepare the files.
 */
export function lexiconOrNone(load: () => Lexicon = loadLexicon): Lexicon | undefined {
  try {
    return load();
  } catch (err) {
    if (!(err instanceof LexiconUnavailableError)) throw err;
    new Logger('Lexicon').warn({ msg: 'find_tool ranks by words only: related words by meaning are off', reason: err.message });
    return undefined;
  }
}

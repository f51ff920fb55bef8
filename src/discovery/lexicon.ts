import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import { join, resolve } from 'node:path';
import { errnoCode, messageOf } from '../common/thrown';
import { decodeLexicon, type Lexicon } from './domain/semantic';
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
 * once at boot, about 8 MB; the vectors' codes (10 MB more) are read a row at a time when the
 * search asks for one (`domain/vector-codes.ts`). Throws {@link LexiconUnavailableError} when the files are missing,
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
  const vectorCodes = codesOnDisk(join(dir, 'vectors.i8'), dir);
  try {
    return decodeLexicon({
      manifest,
      vectorWords,
      vectorCodes,
      vectorScales: read('vectors.scale.f32'),
      lemmas: read('wordnet.lemmas.txt'),
      relations: read('wordnet.rel.u32'),
    });
  } catch (err) {
    vectorCodes.close();
    if (err instanceof LexiconUnavailableError) throw err;
    throw new LexiconUnavailableError(dir, messageOf(err));
  }
}

/**
 * `vectors.i8` read a row at a time through a descriptor kept open for the life of the process
 * (the lexicon is loaded once per process). A row costs one `pread` from the page cache, about a
 * microsecond; a file shortened after boot fails the read that reaches past its end.
 */
function codesOnDisk(path: string, dir: string): VectorCodes & { close(): void } {
  let fd: number | undefined;
  let length: number;
  try {
    fd = openSync(path, 'r');
    length = fstatSync(fd).size;
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    throw new LexiconUnavailableError(dir, `cannot read vectors.i8 (${errnoCode(err) ?? String(err)})`);
  }
  const open = fd;
  return {
    length,
    row(r, into) {
      const read = readSync(open, into, 0, into.length, r * into.length);
      if (read !== into.length) throw new LexiconUnavailableError(dir, `vectors.i8 has no row ${r} (read ${read} of ${into.length} bytes)`);
      return into;
    },
    close: () => closeSync(open),
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

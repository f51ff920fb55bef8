import { readFileSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import { join, resolve } from 'node:path';
import { errnoCode, messageOf } from '../common/thrown';
import { decodeLexicon, type Lexicon } from './domain/semantic';

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
 * once at boot, about 18 MB. Throws {@link LexiconUnavailableError} when the files are missing,
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
  try {
    return decodeLexicon({
      manifest,
      vectorWords: read('vectors.words.txt'),
      vectorCodes: read('vectors.i8'),
      vectorScales: read('vectors.scale.f32'),
      lemmas: read('wordnet.lemmas.txt'),
      relations: read('wordnet.rel.u32'),
    });
  } catch (err) {
    if (err instanceof LexiconUnavailableError) throw err;
    throw new LexiconUnavailableError(dir, messageOf(err));
  }
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

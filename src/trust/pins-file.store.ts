import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { errnoCode, messageOf } from '../common/thrown';
import { ConfigError } from '../config/config.errors';
import { EMPTY_PINS, parsePins, serializePins, type PinsDocument } from './domain/pins-file';
import { withPinsLock, type LockOptions } from './pins-lock';

/** The pins file as read: the document and the exact text (to tell a later change from our own write). */
export interface ReadPins {
  doc: PinsDocument;
  text: string;
}

/**
 * Reads the pins file; a missing or empty file is an empty document (its text blank). Throws a ConfigError naming
 * the file and what is wrong with it (never its content): at boot it stops the router as an
 * invalid config does.
 */
export function readPinsFile(file: string): ReadPins {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT') return { doc: EMPTY_PINS, text: '' };
    throw new ConfigError([`trust.pinsFile: cannot read ${file} (${code ?? 'error'})`]);
  }
  // An empty file is read as a missing one (a volume's placeholder, a file truncated by hand).
  if (text.trim() === '') return { doc: EMPTY_PINS, text };
  try {
    return { doc: parsePins(text), text };
  } catch (err) {
    throw new ConfigError([`trust.pinsFile ${file}: ${messageOf(err)}`]);
  }
}

/**
 * Writes the pins file atomically (a temporary file beside it, renamed over it), so no reader (a
 * person, the CLI, the router's watch) ever sees half a file. Returns the text written. Writers
 * hold the pins lock (see `updatePinsFile`); this alone does not keep another writer's change.
 */
export function writePinsFile(file: string, doc: PinsDocument): string {
  const text = serializePins(doc);
  // Unique per writer: two pods over one volume may both be pid 1.
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, text, { mode: 0o644 });
  renameSync(temporary, file);
  return text;
}

/**
 * Changes the pins file without losing anyone else's change: under the pins lock, reads
 * the file as it is now, applies `change` to it and writes the result (atomically) when `change`
 * returns a document. Every writer (the router recording new definitions, the CLI approving) goes
 * through here, so of two writers the second always starts from the first one's result.
 */
export function updatePinsFile<T>(
  file: string,
  lock: LockOptions,
  change: (current: ReadPins) => { doc?: PinsDocument; value: T },
): { value: T; text?: string } {
  return withPinsLock(
    file,
    () => {
      const result = change(readPinsFile(file));
      return result.doc === undefined ? { value: result.value } : { value: result.value, text: writePinsFile(file, result.doc) };
    },
    lock,
  );
}

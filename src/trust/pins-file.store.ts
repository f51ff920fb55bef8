import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { EMPTY_PINS, parsePins, serializePins, type PinsDocument } from './domain/pins-file';

/** The pins file as read: the document and the exact text (to tell a later change from our own write). */
export interface ReadPins {
  doc: PinsDocument;
  text: string;
}

/**
 * Reads the pins file; a missing file is an empty document. Throws an Error naming the file and
 * what is wrong with it (never its content).
 */
export function readPinsFile(file: string): ReadPins {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { doc: EMPTY_PINS, text: '' };
    throw new Error(`trust.pinsFile: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return { doc: parsePins(text), text };
  } catch (err) {
    throw new Error(`trust.pinsFile ${file}: ${(err as Error).message}`);
  }
}

/**
 * Writes the pins file atomically (a temporary file beside it, renamed over it), so no reader (a
 * person, the CLI, the router's watch) ever sees half a file. Returns the text written.
 */
export function writePinsFile(file: string, doc: PinsDocument): string {
  const text = serializePins(doc);
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o644 });
  renameSync(temporary, file);
  return text;
}

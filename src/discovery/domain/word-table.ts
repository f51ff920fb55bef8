/**
 * A list of words, one a line in UTF-8, kept as the bytes it was read as: an offset per line and
 * an open-addressing hash table of line numbers, instead of a JavaScript string per word and a
 * Map over them. For the lexicon's 250,000 words that is about 3 MB next to the file's bytes,
 * where strings and a Map took about 17 MB of heap and, with the garbage of decoding them, some
 * 50 MB of resident memory.
 *
 * Words are hashed by their UTF-16 code units, so a lookup hashes the JavaScript string it is
 * given without encoding it; a line that is not ASCII is decoded once, at build, to be hashed the
 * same way.
 */
export class WordTable {
  /** Line i is `bytes[starts[i] .. starts[i + 1] - 1)` (the last line may lack its newline). */
  private readonly starts: Uint32Array;
  /** Line number + 1 at each slot; 0 is an empty slot. Its length is a power of two. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  readonly length: number;

  constructor(private readonly bytes: Uint8Array) {
    this.length = countLines(bytes);
    this.starts = new Uint32Array(this.length + 1);
    let line = 0;
    if (this.length > 0) {
      for (let i = 0; i < bytes.length; i += 1) if (bytes[i] === NEWLINE && line + 1 < this.length) this.starts[++line] = i + 1;
    }
    this.starts[this.length] = bytes.length > 0 && bytes[bytes.length - 1] === NEWLINE ? bytes.length : bytes.length + 1;
    let size = 1;
    while (size < this.length * 2) size *= 2;
    this.slots = new Int32Array(size);
    this.mask = size - 1;
    for (let i = 0; i < this.length; i += 1) {
      let slot = this.lineHash(i) & this.mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
      this.slots[slot] = i + 1;
    }
  }

  /** Line `i` as a string. */
  at(i: number): string {
    return DECODER.decode(this.bytes.subarray(this.starts[i], this.starts[i + 1] - 1));
  }

  /** Lines `start .. end` as strings. */
  slice(start: number, end: number = this.length): string[] {
    const out: string[] = [];
    for (let i = Math.max(0, start); i < Math.min(end, this.length); i += 1) out.push(this.at(i));
    return out;
  }

  /** The first line that is exactly `word`, or -1. */
  indexOf(word: string): number {
    let slot = hashString(word) & this.mask;
    for (let entry = this.slots[slot]; entry !== 0; entry = this.slots[slot]) {
      if (this.equals(entry - 1, word)) return entry - 1;
      slot = (slot + 1) & this.mask;
    }
    return -1;
  }

  /** Whether line `i` sorts before line `i + 1` in code-point order (bytewise UTF-8). */
  ascending(i: number): boolean {
    const a = this.starts[i];
    const aEnd = this.starts[i + 1] - 1;
    const b = this.starts[i + 1];
    const bEnd = this.starts[i + 2] - 1;
    for (let k = 0; a + k < aEnd && b + k < bEnd; k += 1) {
      if (this.bytes[a + k] !== this.bytes[b + k]) return this.bytes[a + k] < this.bytes[b + k];
    }
    return aEnd - a < bEnd - b;
  }

  private equals(line: number, word: string): boolean {
    const start = this.starts[line];
    const end = this.starts[line + 1] - 1;
    if (!this.isAscii(start, end)) return this.at(line) === word;
    if (end - start !== word.length) return false;
    for (let k = 0; k < word.length; k += 1) if (this.bytes[start + k] !== word.charCodeAt(k)) return false;
    return true;
  }

  private lineHash(line: number): number {
    const start = this.starts[line];
    const end = this.starts[line + 1] - 1;
    if (!this.isAscii(start, end)) return hashString(this.at(line));
    let hash = FNV_OFFSET;
    for (let k = start; k < end; k += 1) hash = Math.imul(hash ^ this.bytes[k], FNV_PRIME);
    return hash >>> 0;
  }

  private isAscii(start: number, end: number): boolean {
    for (let k = start; k < end; k += 1) if (this.bytes[k] >= 0x80) return false;
    return true;
  }
}

const NEWLINE = 0x0a;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const DECODER = new TextDecoder();

/** FNV-1a over UTF-16 code units: equal to the byte hash for an ASCII line. */
function hashString(word: string): number {
  let hash = FNV_OFFSET;
  for (let k = 0; k < word.length; k += 1) hash = Math.imul(hash ^ word.charCodeAt(k), FNV_PRIME);
  return hash >>> 0;
}

/** Lines of `bytes` as `text.split('\n')` counts them, but none for empty input. */
function countLines(bytes: Uint8Array): number {
  if (bytes.length === 0) return 0;
  let lines = 1;
  for (let i = 0; i < bytes.length; i += 1) if (bytes[i] === NEWLINE) lines += 1;
  // A final newline ends the last line rather than starting an empty one.
  return bytes[bytes.length - 1] === NEWLINE ? lines - 1 : lines;
}

import mimeDb from 'mime-db';

/**
 * What the literal values in a request say about the tool it needs: "load photo.jpg" asks for
 * something that handles images, "what is 12 plus 30" for something over numbers, a URL for
 * something on the web. Each literal is typed by general rules (number, URL, e-mail address,
 * date, file path, and a file's media type from its extension, per the IANA media types that
 * `mime-db` ships) into plain words, searched beside the request's own words at a lower weight.
 * Pure: no I/O, no clock.
 */

/** Extension (lowercase, no dot) → the words of its media type, e.g. `jpg` → `image`, `jpeg`. */
const MEDIA_WORDS: ReadonlyMap<string, readonly string[]> = mediaWords();

function mediaWords(): Map<string, string[]> {
  const words = new Map<string, string[]>();
  for (const [type, entry] of Object.entries(mimeDb)) {
    const [top, sub] = type.split('/');
    // "application" and "x-…" subtypes name no kind of thing a request would say.
    const said = [top === 'application' ? undefined : top, /^[a-z]+$/.test(sub) ? sub : undefined].filter((w): w is string => w !== undefined);
    for (const extension of entry.extensions ?? []) if (!words.has(extension)) words.set(extension, said);
  }
  return words;
}

const URL_LITERAL = /^(?:https?|wss?|ftp):\/\/\S+$/i;
const EMAIL_LITERAL = /^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i;
const DATE_LITERAL = /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+Z?)?$/;
const NUMBER_LITERAL = /^[-+]?(?:\d+(?:[.,]\d+)?|\.\d+)%?$/;
const PATH_LITERAL = /^(?:~|\.{1,2}|[a-z]:)?[\\/][^\\/\s]+/i;
const FILE_NAME = /^[^\s\\/]*[\\/]?[^\s\\/]+\.([a-z0-9]{1,5})$/i;

/**
 * The words the literals of `query` stand for, each once, in the order first met. Words of the
 * request itself are left to the tokenizer; this adds only what a literal implies.
 */
export function literalWords(query: string): string[] {
  const words = new Set<string>();
  for (const raw of query.split(/\s+/)) {
    // Quotes, brackets and sentence punctuation around a literal are not part of it.
    const literal = raw.replace(/^["'`([{<]+|["'`)\]}>,;:!?]+$|\.$/g, '');
    if (literal === '') continue;
    if (URL_LITERAL.test(literal)) words.add('url');
    else if (EMAIL_LITERAL.test(literal)) words.add('email');
    else if (DATE_LITERAL.test(literal)) words.add('date');
    else if (NUMBER_LITERAL.test(literal)) words.add('number');
    else {
      const extension = FILE_NAME.exec(literal)?.[1]?.toLowerCase();
      const media = extension === undefined ? undefined : MEDIA_WORDS.get(extension);
      if (media !== undefined) {
        words.add('file');
        for (const word of media) words.add(word);
      }
      if (PATH_LITERAL.test(literal)) {
        words.add('path');
        words.add('file');
      }
    }
  }
  return [...words];
}

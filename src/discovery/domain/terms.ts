import { stem } from 'porter2';
import { literalWords } from './literals';

/**
 * The words of the tool catalog and of `find_tool` queries, normalized the same way on both sides
 * (architecture §1): split at code-name boundaries, stop words dropped, words stemmed. Pure: no I/O, no
 * clock, no environment. General English rules only: no word list here was chosen against a
 * query set (see BENCHMARKS.md, "Discovery").
 */

/** A query is a few words; bounding the terms bounds the work of fuzzy matching a pasted essay. */
const MAX_QUERY_TERMS = 32;
const MAX_QUERY_CHARS = 1000;

/**
 * English function words (the Snowball project's English stop list), which say nothing about which
 * tool is meant, plus the filler of a request ("please", "want", "need"). A generic list,
 * not one chosen against any query set.
 */
const STOP_WORDS: ReadonlySet<string> = new Set([
  'i',
  'me',
  'my',
  'myself',
  'we',
  'us',
  'our',
  'ours',
  'ourselves',
  'you',
  'your',
  'yours',
  'yourself',
  'yourselves',
  'he',
  'him',
  'his',
  'himself',
  'she',
  'her',
  'hers',
  'herself',
  'it',
  'its',
  'itself',
  'they',
  'them',
  'their',
  'theirs',
  'themselves',
  'what',
  'which',
  'who',
  'whom',
  'this',
  'that',
  'these',
  'those',
  'am',
  'is',
  'are',
  'was',
  'were',
  'be',
  'been',
  'being',
  'have',
  'has',
  'had',
  'having',
  'do',
  'does',
  'did',
  'doing',
  'would',
  'should',
  'could',
  'ought',
  'will',
  'shall',
  'can',
  'may',
  'might',
  'must',
  'a',
  'an',
  'the',
  'and',
  'but',
  'if',
  'or',
  'because',
  'as',
  'until',
  'while',
  'of',
  'at',
  'by',
  'for',
  'with',
  'about',
  'against',
  'between',
  'into',
  'through',
  'during',
  'before',
  'after',
  'above',
  'below',
  'to',
  'from',
  'in',
  'on',
  'off',
  'over',
  'under',
  'again',
  'further',
  'then',
  'once',
  'here',
  'there',
  'when',
  'where',
  'why',
  'how',
  'all',
  'any',
  'both',
  'each',
  'few',
  'more',
  'most',
  'other',
  'some',
  'such',
  'no',
  'nor',
  'not',
  'only',
  'own',
  'same',
  'so',
  'than',
  'too',
  'very',
  'just',
  'also',
  'onto',
  'please',
  'want',
  'need',
  'im',
  'ive',
  'youre',
  'dont',
  'cant',
  'wont',
]);

/**
 * Splits text into lowercase terms: on whitespace and punctuation, at snake_case, kebab-case,
 * dots, camelCase and letter/digit boundaries. A compound word (`read_text_file`,
 * `getTinyImage`, `config.yaml`) is also kept whole, lowercased, so an exact tool name typed
 * into a query matches that tool's name best.
 */
export function tokenize(text: string): string[] {
  return split(text, true);
}

/**
 * The words of a name or text as {@link tokenize} splits them, without the compounds kept whole:
 * `read_text_file` → `read`, `text`, `file`. What a tool's name says, word by word.
 */
export function nameWords(text: string): string[] {
  return split(text, false);
}

function split(text: string, keepWhole: boolean): string[] {
  const terms: string[] = [];
  // Possessives and contractions: "file's" → "file", "don't" → "dont".
  const cleaned = text.replace(/['’]s\b/gu, '').replace(/['’]/gu, '');
  for (const chunk of cleaned.split(/[\s,;:!?()[\]{}<>"`|/\\=+*&^%$#@~]+/u)) {
    const word = chunk.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (word === '') continue;
    const parts = splitWord(word);
    terms.push(...parts);
    if (keepWhole && parts.length > 1) terms.push(word.toLowerCase());
  }
  // Text pasted with its escapes ("…\nblack…" from a JSON string): the word after `\n`, `\r`
  // or `\t` is a word too. Added beside the glued one, since `\notes` may be a Windows path.
  for (const escaped of cleaned.matchAll(/\\[nrt](\p{Ll}{2,})/gu)) terms.push(escaped[1]);
  return terms;
}

function splitWord(word: string): string[] {
  // Most words of a description are plain lowercase: skip the boundary rewriting for them.
  if (/^\p{Ll}+$/u.test(word)) return [word];
  return word
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})/gu, '$1 $2')
    .replace(/(\p{N})(\p{L})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((part) => part !== '')
    .map((part) => part.toLowerCase());
}

/**
 * Normalizes one term, the same way at index and at query time: stop words drop out, words are
 * stemmed (Porter2), so "photos", "photo" and "photographs" meet where English morphology says
 * they should. Compound terms (whole names such as `read_text_file`) are kept as they are so an
 * exact name stays exact.
 */
export function normalizeTerm(term: string): string | null {
  // A bare number in a request is an argument's value ("ticket 4", "add 5 to 3"), and in a tool
  // name a version or a sequence number (`Hotels_4_SearchHotel`): matching one to the other is
  // chance. Numbers inside compounds (`base64`, `sha256sum`) stay, whole.
  if (STOP_WORDS.has(term) || /^\d+$/.test(term)) return null;
  if (!/^[\p{L}\p{N}]+$/u.test(term)) return term;
  return /^[a-z]+$/.test(term) ? stem(term) : term;
}

/** A query term and how much a match on it counts. */
export interface QueryTerm {
  /** The normalized (stemmed) term, as the index holds it. */
  readonly term: string;
  /** The word as the request wrote it, lowercased, when it is a plain word: what word meanings are looked up by. */
  readonly word: string | undefined;
  readonly weight: number;
  /** Implied by a literal of the request ("number" for "12"), not written in it. */
  readonly implied: boolean;
}

/**
 * How much a word implied by a literal (see `literals.ts`) counts against a word of the request:
 * "photo.jpg" says "image", but less surely than a request that says "image".
 */
const LITERAL_WEIGHT = 0.5;

/**
 * The query's distinct normalized terms, bounded (see MAX_QUERY_TERMS): its own words, then the
 * words its literals imply (a number, a URL, a file's media type) at a lower weight.
 */
export function queryTerms(query: string): QueryTerm[] {
  const text = query.slice(0, MAX_QUERY_CHARS);
  const terms = new Map<string, QueryTerm>();
  for (const token of tokenize(text)) {
    const term = normalizeTerm(token);
    if (term !== null && !terms.has(term)) terms.set(term, { term, word: /^[a-z]+$/.test(token) ? token : undefined, weight: 1, implied: false });
    if (terms.size >= MAX_QUERY_TERMS) break;
  }
  for (const word of literalWords(text)) {
    const term = normalizeTerm(word);
    if (term !== null && !terms.has(term) && terms.size < MAX_QUERY_TERMS) terms.set(term, { term, word, weight: LITERAL_WEIGHT, implied: true });
  }
  return [...terms.values()];
}

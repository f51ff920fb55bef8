import { relatedTerms } from './related-terms';
import { rowOf, vocabularyVectors, type Lexicon } from './semantic';
import { normalizeTerm } from './terms';
import type { IndexState, TermWeight, Vocabulary } from './tool-index';

/**
 * Spelling correction for `find_tool` requests (architecture §1): what a word neither the catalog
 * nor the lexicon knows may stand for among the catalog's words, and, when no catalog word is
 * near it, through the English word it misspells. Pure: no I/O, no clock.
 */

/**
 * Spelling correction: a query word the catalog does not know stands for the catalog terms within
 * a small edit distance (none below 4 characters, where too much matches by accident; 1 edit up
 * to 7 characters, 2 beyond), or that it begins (from 3 characters: a half-typed `list_dir`).
 * Words the catalog knows are never widened: look-alikes would bury the word itself.
 */
const FUZZY_MIN_LENGTH = 4;
const FUZZY_LONG_LENGTH = 8;
const PREFIX_MIN_LENGTH = 3;
const FUZZY_WEIGHT = 0.45;
const PREFIX_WEIGHT = 0.375;
/** Corrections kept per word, the closest first: a word matching hundreds of terms says little. */
const MAX_CORRECTIONS = 8;

/**
 * The catalog terms a word the catalog does not know may be a misspelling of. A plain word as the
 * request wrote it is compared with the catalog's plain words as written, not with stems: a stem
 * cuts a typo's end differently from the word's ("usres" → `usr`, "users" → `user`, three letters
 * apart from a match), and a swap of two letters is one edit between words. Other terms (a
 * compound, a word with digits) are compared with the catalog's terms.
 */
export function corrections(state: IndexState, term: string, written: string | undefined): TermWeight[] {
  if (written === undefined) return nearTerms((state.vocabulary ??= arrange(state.postings.keys())), term);
  const byWord = nearTerms((state.wordVocabulary ??= arrange(state.words.keys())), written);
  const terms = new Map<string, number>();
  for (const { term: word, weight } of byWord) {
    const normalized = normalizeTerm(word);
    if (normalized !== null && state.postings.has(normalized) && !terms.has(normalized)) terms.set(normalized, weight);
  }
  return [...terms].map(([found, weight]) => ({ term: found, weight }));
}

/** The entries of `vocabulary` within a few edits of `word` or that it begins, the closest first. */
function nearTerms(vocabulary: Vocabulary, word: string): TermWeight[] {
  const found: { term: string; weight: number; distance: number }[] = [];
  if (word.length >= PREFIX_MIN_LENGTH) {
    for (let at = lowerBound(vocabulary.sorted, word); at < vocabulary.sorted.length; at += 1) {
      const term = vocabulary.sorted[at];
      if (!term.startsWith(word)) break;
      if (term.length > word.length) found.push({ term, weight: PREFIX_WEIGHT, distance: term.length - word.length });
    }
  }
  const maxEdits = word.length < FUZZY_MIN_LENGTH ? 0 : word.length < FUZZY_LONG_LENGTH ? 1 : 2;
  for (let length = word.length - maxEdits; maxEdits > 0 && length <= word.length + maxEdits; length += 1) {
    for (const term of vocabulary.byStart.get(startKey(word[0], length)) ?? []) {
      const distance = editDistance(word, term, maxEdits);
      if (distance <= maxEdits) found.push({ term, weight: FUZZY_WEIGHT, distance });
    }
  }
  found.sort((a, b) => b.weight - a.weight || a.distance - b.distance || (a.term < b.term ? -1 : 1));
  return found.slice(0, MAX_CORRECTIONS).map(({ term, weight }) => ({ term, weight }));
}

/**
 * English words are tried as corrections among this many most frequent only: further down, the
 * vocabulary holds names and rare spellings that a typo meets by chance.
 */
const ENGLISH_CORRECTION_RANK = 20_000;

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/**
 * The English word a misspelt word is one edit from (a letter deleted, inserted or replaced, or
 * two neighbours swapped), among the lexicon's most frequent; none when no word is, or when
 * several are: a name or a word of another language meets several by chance ("dalam": "dalai",
 * "salam"), a typo seldom does ("airtificial": "artificial").
 */
export function englishCorrection(lexicon: Lexicon, word: string): string | undefined {
  if (word.length < FUZZY_MIN_LENGTH) return undefined;
  let found: string | undefined;
  const consider = (candidate: string): boolean => {
    if (candidate === found || (rowOf(lexicon, candidate) ?? Infinity) >= ENGLISH_CORRECTION_RANK) return true;
    if (found !== undefined) return false;
    found = candidate;
    return true;
  };
  for (let i = 0; i <= word.length; i += 1) {
    const head = word.slice(0, i);
    const tail = word.slice(i);
    if (tail.length > 0 && !consider(head + tail.slice(1))) return undefined;
    if (tail.length > 1 && !consider(head + tail[1] + tail[0] + tail.slice(2))) return undefined;
    for (const letter of LETTERS) {
      if (tail.length > 0 && letter !== tail[0] && !consider(head + letter + tail.slice(1))) return undefined;
      if (!consider(head + letter + tail)) return undefined;
    }
  }
  return found;
}

/**
 * What a misspelt word that no catalog word is near may still mean in the catalog: the English
 * word it misspells ({@link englishCorrection}), as a catalog term and through its related words
 * ("phtoo" → "photo" → `image`), at the weight of a correction. On the tune parts with one typo in
 * half their longer words this raised recall@5 and MRR@10 of all three sets (BENCHMARKS.md
 * "Discovery"); tried for every misspelt word, and with two candidates, it lowered them.
 */
export function englishStandIns(state: IndexState, lexicon: Lexicon, written: string): TermWeight[] {
  const english = englishCorrection(lexicon, written);
  if (english === undefined) return [];
  const best = new Map<string, number>();
  const own = normalizeTerm(english);
  if (own !== null && state.postings.has(own)) best.set(own, FUZZY_WEIGHT);
  const related = relatedTerms(lexicon, english, {
    hasTerm: (candidate) => state.postings.has(candidate),
    wordVectors: () => (state.wordVectors ??= vocabularyVectors(lexicon, state.words.keys())),
  });
  for (const { term, weight } of related) if (FUZZY_WEIGHT * weight > (best.get(term) ?? 0)) best.set(term, FUZZY_WEIGHT * weight);
  return [...best].map(([term, weight]) => ({ term, weight }));
}

function arrange(terms: Iterable<string>): Vocabulary {
  const sorted = [...terms].sort();
  const byStart = new Map<string, string[]>();
  for (const term of sorted) {
    const key = startKey(term[0], term.length);
    const list = byStart.get(key);
    if (list === undefined) byStart.set(key, [term]);
    else list.push(term);
  }
  return { sorted, byStart };
}

/**
 * Near spellings are looked for among terms of the same first letter and a close length: a typo
 * rarely hits the first letter, and comparing with a twentieth of the vocabulary keeps a
 * first-seen word's corrections well under a millisecond in a catalog of 10,000 tools.
 */
function startKey(first: string, length: number): string {
  return `${first}${length}`;
}

/** The first index of `sorted` whose term is not below `word`. */
function lowerBound(sorted: readonly string[], word: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle] < word) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Optimal-string-alignment distance (insertions, deletions, substitutions, adjacent swaps), or
 * `max + 1` as soon as it must exceed `max`.
 */
export function editDistance(a: string, b: string, max: number): number {
  const width = b.length + 1;
  let before = new Int32Array(width);
  let previous = new Int32Array(width);
  let current = new Int32Array(width);
  for (let j = 0; j < width; j += 1) previous[j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j < width; j += 1) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1)) {
        value = Math.min(value, before[j - 2] + 1);
      }
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length];
}

import { nearestInVocabulary, rowOf, wordnetRelated, type Lexicon, type VocabularyVectors } from './semantic';
import { normalizeTerm } from './terms';
import type { TermWeight } from './tool-index';

/**
 * The catalog terms a request's word is related to by meaning, from the offline lexicon (README,
 * "Offline lexicon"): WordNet synonyms and derivationally related forms, and
 * the catalog words nearest it in a word-vector space. "remember" finds `memory`, "folder" finds
 * `directory`, "photo" finds `image`, with no list written for any of them. Each related term
 * counts for less than the word itself. Pure: no I/O.
 */

/** How much a match on a related term counts, against 1 for the word itself. */
const SYNONYM_WEIGHT = 0.3;
const DERIVATION_WEIGHT = 0.3;
/** A vector neighbour counts this times its cosine similarity. */
const NEIGHBOUR_WEIGHT = 0.4;
/** Vector neighbours: at most this many, and only this similar or more. */
const NEIGHBOURS = 5;
const MIN_COSINE = 0.5;
/**
 * The thousand most frequent English words ("get", "make", "show", "number") sit near almost
 * everything in a vector space: as a neighbour one says nothing about a request (on the tune
 * parts, leaving them out raised MRR@10 on all three sets). In a request they count for less
 * ({@link requestWordWeight}).
 */
const GENERAL_WORDS = 1000;

/**
 * A request's word among those most frequent English words says less about what is wanted than a
 * rarer one ("tell", "know", "give", "help" against "invoice"), even where the catalog seldom uses
 * it: it counts this much (on the tune parts, 0.7 raised recall@5 and MRR@10 on all three sets;
 * 0.5 and 0.6 lowered livemcpbench).
 */
const GENERAL_WORD_WEIGHT = 0.7;

/** How much a request's word counts, by how general it is in English (1 for most words). */
export function requestWordWeight(lexicon: Lexicon, word: string): number {
  return (rowOf(lexicon, word) ?? Infinity) < GENERAL_WORDS ? GENERAL_WORD_WEIGHT : 1;
}

/** What related terms are looked for among: the catalog's terms and its plain words. */
export interface CatalogWords {
  /** True when the normalized term is in the catalog. */
  hasTerm(term: string): boolean;
  /** The vectors of the catalog's plain words (built once per catalog version). */
  wordVectors(): VocabularyVectors;
}

/**
 * The catalog terms related to `word` (a plain word as the request wrote it), each with its
 * weight, the best weight when several relations lead to one term; the word's own term is left
 * out (the caller matches it at full weight).
 */
export function relatedTerms(lexicon: Lexicon, word: string, catalog: CatalogWords): TermWeight[] {
  const own = normalizeTerm(word);
  const best = new Map<string, number>();
  const add = (related: string, weight: number): void => {
    // Multi-word lemmas ("call back") are phrases the index cannot match as one term.
    if (related.includes(' ')) return;
    const term = normalizeTerm(related);
    if (term === null || term === own || !catalog.hasTerm(term)) return;
    if (weight > (best.get(term) ?? 0)) best.set(term, weight);
  };
  // Hypernyms ("delete" → "remove", "photo" → "representation") were tried and left out: on the
  // tune parts they lowered MRR@10 on every set (BENCHMARKS.md, "Discovery").
  const { synonyms, derivations } = wordnetRelated(lexicon, word);
  for (const related of synonyms) add(related, SYNONYM_WEIGHT);
  for (const related of derivations) add(related, DERIVATION_WEIGHT);
  for (const { word: neighbour, cos } of nearestInVocabulary(lexicon, word, catalog.wordVectors(), NEIGHBOURS, MIN_COSINE)) {
    if ((rowOf(lexicon, neighbour) ?? Infinity) >= GENERAL_WORDS) add(neighbour, NEIGHBOUR_WEIGHT * cos);
  }
  return [...best].map(([term, weight]) => ({ term, weight }));
}

/** True when the lexicon knows the word (a vector or a WordNet lemma): a real word, not a typo. */
export function isKnownWord(lexicon: Lexicon, word: string): boolean {
  const { synonyms, derivations, hypernyms } = wordnetRelated(lexicon, word);
  return rowOf(lexicon, word) !== undefined || synonyms.length + derivations.length + hypernyms.length > 0;
}

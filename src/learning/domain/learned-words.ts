/** A normalized word of a request, as the ranking's query terms give it. */
export interface RequestTerm {
  readonly term: string;
  readonly implied: boolean;
}

/** The words of a request worth learning: each distinct term once, at most this many. */
export const MAX_LEARNED_WORDS = 16;

/**
 * What is learned of a request: its own normalized words (never its text), not the words a
 * literal implied ("number" for "12"), each once.
 */
export function learnedWords(terms: readonly RequestTerm[]): string[] {
  const words = new Set<string>();
  for (const { term, implied } of terms) {
    if (!implied) words.add(term);
    if (words.size === MAX_LEARNED_WORDS) break;
  }
  return [...words];
}

import { learnedScores, type LearnedSignal } from '../../learning/domain/associations';
import type { QueryTerm } from './terms';
import { learnedWords } from '../../learning/domain/learned-words';
import type { IndexedTool, IndexState } from './tool-index';

/**
 * A tool learned for a request's words gains this × the sum of their learned weights (each 0..1),
 * added to its lexical score. Chosen on the tune parts (BENCHMARKS.md "Learning from use").
 */
export const LEARNED_WEIGHT = 4;

/**
 * What use taught about the request's own words, per tool (added to `matched` when it matched no
 * word); undefined when nothing was learned for them.
 */
export function liftedByUse(
  state: IndexState,
  terms: readonly QueryTerm[],
  backend: string | undefined,
  learned: LearnedSignal | undefined,
  matched: IndexedTool[],
): Map<IndexedTool, number> | undefined {
  if (learned === undefined || learned.size === 0) return undefined;
  const words = learnedWords(terms);
  const lifted = new Map<IndexedTool, number>();
  for (const [key, weight] of learnedScores(learned, words)) {
    const doc = state.byId.get(key);
    if (doc === undefined || (backend !== undefined && doc.tool.backend !== backend)) continue;
    if (state.scratch.totals[doc.slot] === 0) matched.push(doc);
    lifted.set(doc, LEARNED_WEIGHT * weight);
  }
  return lifted;
}

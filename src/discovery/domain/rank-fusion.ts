/**
 * Reciprocal-rank fusion of several rankings of the same items (Cormack, Clarke and Büttcher,
 * "Reciprocal Rank Fusion outperforms Condorcet and individual rank learning methods", SIGIR
 * 2009). `find_tool` fuses its lexical ranking with the dense one of an embeddings endpoint this
 * way: ranks, unlike scores, need no calibration between a BM25 score and a cosine.
 * Pure: no I/O, no clock.
 */

/** The constant of the fusion; small, so that the first few ranks of each list weigh most. */
export const RRF_K = 10;

/** One fused item and its fused score: the sum over the rankings of 1 / (k + rank), rank from 1. */
export interface FusedItem<T> {
  item: T;
  score: number;
}

/** Options of {@link fuseRankings}. */
export interface FusionOptions {
  /** The fusion constant (default {@link RRF_K}). */
  k?: number;
  /** Only the first `depth` items of each ranking take part (default: all). */
  depth?: number;
}

/**
 * Fuses `rankings` (each best first; an item is identified by `key`, and an item listed twice in
 * one ranking counts at its first place) into one ranking, best first. An item missing from a
 * ranking gets nothing from it. Equal scores are ordered by the earlier rankings first (the better
 * rank in the first ranking that tells them apart), then by key, so the order is total and
 * deterministic.
 */
export function fuseRankings<T>(rankings: readonly (readonly T[])[], key: (item: T) => string, options: FusionOptions = {}): FusedItem<T>[] {
  const k = options.k ?? RRF_K;
  const depth = options.depth ?? Number.POSITIVE_INFINITY;
  const entries = new Map<string, { item: T; key: string; score: number; ranks: number[] }>();
  rankings.forEach((ranking, list) => {
    const limit = Math.min(ranking.length, depth);
    for (let at = 0; at < limit; at += 1) {
      const item = ranking[at];
      const id = key(item);
      let entry = entries.get(id);
      if (entry === undefined) {
        entry = { item, key: id, score: 0, ranks: rankings.map(() => Number.POSITIVE_INFINITY) };
        entries.set(id, entry);
      }
      if (entry.ranks[list] !== Number.POSITIVE_INFINITY) continue;
      entry.ranks[list] = at + 1;
      entry.score += 1 / (k + at + 1);
    }
  });
  return [...entries.values()]
    .sort((a, b) => {
      if (a.score !== b.score) return b.score - a.score;
      for (let list = 0; list < a.ranks.length; list += 1) {
        if (a.ranks[list] !== b.ranks[list]) return a.ranks[list] - b.ranks[list];
      }
      return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
    })
    .map(({ item, score }) => ({ item, score }));
}

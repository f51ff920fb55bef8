import { rankTerms, type RankedMatches, type SearchToolsOptions, type ToolHit } from './ranking';
import { indexVersion, type ToolIndex } from './tool-index';
import { queryTerms, type QueryTerm } from './terms';

/** Bounds of a {@link SearchCache}. */
export interface SearchCacheLimits {
  /** Distinct (query, backend) pairs kept; the least recently used goes first. */
  entries: number;
  /**
   * Hits kept per pair, above `find_tool`'s largest top_k (10, architecture §1) so that a caller who
   * may not see some of them still gets its answer from the cache.
   */
  depth: number;
}

const DEFAULT_LIMITS: SearchCacheLimits = { entries: 256, depth: 32 };

/** Starts the key of a ranking made with what was learned (no backend name starts so). */
const WITH_LEARNED = '+';

/**
 * A least-recently-used cache of rankings in front of `searchTools`, with the same answers.
 * Agents repeat queries, and one query over a catalog of look-alike tools scores thousands of
 * matches (about 2 ms at 10,000 tools); a cached one costs microseconds.
 *
 * What is cached is the caller-independent ranking: the first `depth` hits of a (normalized
 * query, backend filter) pair, before any visibility filter. Each caller's `visible` filter is
 * applied to those hits on every search, so one principal's answer never reaches another (architecture
 * §10), and a filter function needs no identity. Ranking is a total order (score, then backend,
 * then name), so the first `topK` visible hits of the cached ones are exactly the caller's top k;
 * when fewer are visible and the cached hits are not every match, the query is ranked afresh with
 * the caller's filter. Every change to the index clears the cache, and every change to what was
 * learned from use the rankings made with it (their versions are checked on each search). Browses
 * (empty queries) are cheap and never cached.
 */
export class SearchCache {
  private readonly rankings = new Map<string, RankedMatches>();
  private catalogVersion = -1;
  /** The version of what was learned that the cached rankings with learning were made with. */
  private learnedVersion = 0;
  private readonly limits: SearchCacheLimits;

  constructor(limits: Partial<SearchCacheLimits> = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /** Exactly what `searchTools(index, query, opts)` answers. */
  search(index: ToolIndex, query: string, opts: SearchToolsOptions): ToolHit[] {
    const topK = Number.isFinite(opts.topK) ? Math.floor(opts.topK) : 0;
    const terms = queryTerms(query);
    if (topK < 1 || topK > this.limits.depth || terms.length === 0) return [...rankTerms(index, terms, opts).hits];

    const ranked = this.ranking(index, terms, opts);
    const hits: ToolHit[] = [];
    for (const { tool, score } of ranked.hits) {
      if (opts.visible !== undefined && !opts.visible(tool)) continue;
      hits.push({ tool, score });
      if (hits.length === topK) return hits;
    }
    return ranked.complete ? hits : [...rankTerms(index, terms, opts).hits];
  }

  /** Number of rankings held (for tests and metrics). */
  get size(): number {
    return this.rankings.size;
  }

  private ranking(index: ToolIndex, terms: readonly QueryTerm[], { backend, learned }: SearchToolsOptions): RankedMatches {
    // What was learned from use is part of a ranking made with it: a new version of it is a change
    // to the index for those rankings. Rankings made without it (what find_tool says beside its
    // hits) are kept apart by their key, so that asking for both does not empty the cache each time.
    const version = indexVersion(index);
    const learnedVersion = learned?.version ?? 0;
    if (version !== this.catalogVersion) {
      this.rankings.clear();
      this.catalogVersion = version;
    }
    if (learnedVersion !== 0 && learnedVersion !== this.learnedVersion) {
      for (const key of this.rankings.keys()) if (key.startsWith(WITH_LEARNED)) this.rankings.delete(key);
      this.learnedVersion = learnedVersion;
    }
    // Backend names hold no NUL (config validates them): the key's part before its first NUL is
    // whether what was learned took part and the backend filter, and the rest the query's terms
    // (as written, since word meanings are looked up by the written word) with their weights,
    // space-joined (no term holds a space).
    const key = `${learnedVersion === 0 ? '' : WITH_LEARNED}${backend ?? ''}\u0000${terms.map(({ term, word, weight }) => `${word ?? term}^${weight}`).join(' ')}`;
    const cached = this.rankings.get(key);
    if (cached !== undefined) {
      // Re-inserting moves the key to the end of the Map's order: the most recently used.
      this.rankings.delete(key);
      this.rankings.set(key, cached);
      return cached;
    }
    const ranked = rankTerms(index, terms, { topK: this.limits.depth, backend, learned });
    if (this.rankings.size >= this.limits.entries) {
      const oldest = this.rankings.keys().next();
      if (oldest.done !== true) this.rankings.delete(oldest.value);
    }
    this.rankings.set(key, ranked);
    return ranked;
  }
}

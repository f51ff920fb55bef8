import type { SearchOptions } from 'minisearch';
import type { CatalogTool } from '../registry.types';
import { queryTerms } from './terms';
import { type INDEXED_FIELDS, indexState, type IndexState, type ToolIndex } from './tool-index';

/**
 * Ranked search over the tool catalog for `find_tool` (DESIGN §1): BM25+ (minisearch) over the
 * tool name, description, parameters and backend name, typo-tolerant, with a small stop-word list,
 * plural folding and a handful of synonym folds. Pure: no I/O, no clock, no environment.
 *
 * Every weight and fold below was measured against `test/find-tool-queries.json` over the real
 * demo catalogs (`test/find-tool-recall.spec.ts`); change one only with that test's numbers.
 */

/** One ranked hit; `score` is rounded to 4 decimals, 0 for a browse (empty query). */
export interface ToolHit {
  tool: CatalogTool;
  score: number;
}

/** Options of {@link searchTools}. */
export interface SearchToolsOptions {
  /** Maximum number of hits; values below 1 give no hits, fractions are floored. */
  topK: number;
  /** Restrict hits to this backend. */
  backend?: string;
  /** Restrict hits to tools the caller may see (DESIGN §10); applied before the top-k cut. */
  visible?: (tool: CatalogTool) => boolean;
}

/** The first hits of a query in rank order, and whether they are all of its matches. */
export interface RankedMatches {
  readonly hits: readonly ToolHit[];
  /** True when no match was left out (the query had at most `topK` matches). */
  readonly complete: boolean;
}

/**
 * Field boosts. The name says most about what a tool does and is what a model half-remembers;
 * parameter names are a strong hint ("pattern", "entityNames"); parameter descriptions are long
 * and repetitive, so they count for less than the description. The query set is flat around
 * these values (MRR 0.91..0.93 over name 1..6, params 1..2, parameter descriptions 0.25..1):
 * they are a sane middle, not a tuned optimum.
 */
const FIELD_BOOST: Readonly<Record<(typeof INDEXED_FIELDS)[number], number>> = { name: 3, description: 1, params: 1.5, paramDescriptions: 0.5, backend: 1 };

/**
 * Typo tolerance corrects, it does not expand: fuzzy and prefix matching apply only to a query
 * term that is not itself in the catalog's vocabulary. Widening known words put look-alikes on
 * top ("lines" fuzzily matched `get-resource-links`; for "show env", "read" prefix-matched
 * "reads" and "readability" and buried `get-env`): restricting moved MRR 0.897 → 0.916 (recall@5 0.988 → 0.977, one
 * query) over the 86 labelled queries.
 * Fuzzy edits: none below 4 characters (too many accidental matches), then 20% of the length,
 * at most 2 ("direcotry", "evnironment"). Prefix from 3 characters ("config" finds
 * "configuration", a half-typed `list_dir` finds `list_directory`).
 */
const FUZZY_MIN_LENGTH = 4;
const FUZZY_FRACTION = 0.2;
const MAX_FUZZY = 2;
const PREFIX_MIN_LENGTH = 3;
/** Relative weight of fuzzy and prefix matches against an exact match (1). */
const MATCH_WEIGHTS = { fuzzy: 0.45, prefix: 0.375 } as const;

function fuzziness(term: string): number | false {
  if (term.length < FUZZY_MIN_LENGTH) return false;
  return Math.min(MAX_FUZZY, Math.max(1, Math.round(term.length * FUZZY_FRACTION)));
}

/**
 * A zero document boost skips the document before it is scored, cheaper than a result filter; the
 * id starts with the backend and a NUL, which no backend name contains. Visibility is not checked
 * here: this runs once per matching term and field, so a caller's filter would run thousands of
 * times per query; it runs once per candidate of the top-k walk instead.
 */
function backendFilter(backend: string | undefined): ((id: string) => number) | undefined {
  if (backend === undefined) return undefined;
  const prefix = `${backend}\u0000`;
  return (id: string) => (id.startsWith(prefix) ? 1 : 0);
}

/**
 * Ranks the catalog against a free-text query. Hits are ordered by score (rounded to 4 decimals),
 * then backend, then name, so equal scores come back in a stable order. An empty or
 * stop-word-only query is a browse: the first `topK` tools by backend and name, score 0.
 * A query that matches nothing answers no hits. Never throws.
 */
export function searchTools(index: ToolIndex, query: string, opts: SearchToolsOptions): ToolHit[] {
  return [...rankTerms(index, queryTerms(query), opts).hits];
}

/**
 * {@link searchTools} for a query already split into its normalized terms (`queryTerms`), saying
 * also whether the hits are every match: with that, the first hits of an unfiltered query can be
 * kept and filtered per caller later (see `SearchCache`). No terms is a browse.
 */
export function rankTerms(index: ToolIndex, terms: readonly string[], opts: SearchToolsOptions): RankedMatches {
  const state = indexState(index);
  const topK = Number.isFinite(opts.topK) ? Math.floor(opts.topK) : 0;
  if (topK < 1) return { hits: [], complete: false };
  return terms.length === 0 ? browse(state, topK, opts) : rank(state, terms, topK, opts);
}

function browse(state: IndexState, topK: number, opts: SearchToolsOptions): RankedMatches {
  const hits: ToolHit[] = [];
  const backends = opts.backend === undefined ? [...state.byBackend.values()] : [state.byBackend.get(opts.backend) ?? []];
  for (const tools of backends) {
    for (const tool of tools) {
      if (opts.visible !== undefined && !opts.visible(tool)) continue;
      if (hits.length === topK) return { hits, complete: false };
      hits.push({ tool, score: 0 });
    }
  }
  return { hits, complete: true };
}

function rank(state: IndexState, terms: readonly string[], topK: number, opts: SearchToolsOptions): RankedMatches {
  const options: SearchOptions = {
    boost: FIELD_BOOST,
    weights: MATCH_WEIGHTS,
    prefix: (term) => term.length >= PREFIX_MIN_LENGTH && !state.vocabulary.has(term),
    fuzzy: (term) => !state.vocabulary.has(term) && fuzziness(term),
    maxFuzzy: MAX_FUZZY,
    combineWith: 'OR',
    // The terms are already tokenized and normalized (none holds a space); only split them apart.
    tokenize: (text) => text.split(' '),
    processTerm: (term) => term,
    boostDocument: backendFilter(opts.backend),
  };
  // minisearch answers every match sorted by raw score, so rounded scores never rise along the
  // list: once one falls below the last kept hit, nothing after it can enter. Ties at that score
  // (thousands, in a big catalog of look-alike tools) are settled by backend and name while
  // keeping only topK hits, never by sorting them all.
  const best: RankedId[] = [];
  let complete = true;
  for (const result of state.search.search(terms.join(' '), options)) {
    const score = Math.round(result.score * 1e4) / 1e4;
    if (best.length === topK && score < best[topK - 1].score) {
      complete = false;
      break;
    }
    const id = result.id as string;
    if (opts.visible !== undefined) {
      const tool = state.byId.get(id);
      if (tool === undefined || !opts.visible(tool)) continue;
    }
    if (best.length === topK) complete = false;
    insertBounded(best, { id, score }, topK);
  }
  const hits: ToolHit[] = [];
  for (const { id, score } of best) {
    const tool = state.byId.get(id);
    if (tool !== undefined) hits.push({ tool, score });
  }
  return { hits, complete };
}
interface RankedId {
  id: string;
  score: number;
}

/**
 * Inserts into `best` (ordered by score, then id) and keeps at most `topK`. Comparing ids is
 * comparing (backend, name): the id is `backend NUL name`, and NUL sorts before every character
 * a name or backend can hold.
 */
function insertBounded(best: RankedId[], ranked: RankedId, topK: number): void {
  let at = best.length;
  while (at > 0 && ranksBefore(ranked, best[at - 1])) at -= 1;
  if (at >= topK) return;
  best.splice(at, 0, ranked);
  if (best.length > topK) best.pop();
}

function ranksBefore(a: RankedId, b: RankedId): boolean {
  return a.score > b.score || (a.score === b.score && a.id < b.id);
}

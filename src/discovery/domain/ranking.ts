import type { LearnedSignal } from '../../learning/domain/associations';
import type { CatalogTool } from '../../registry/registry.types';
import { withAbbreviations } from './abbreviations';
import { liftedByUse } from './learned-lift';
import { asServerWord, serverWords } from './server-words';
import { corrections, englishStandIns } from './spelling';
import { isKnownWord, relatedTerms, requestWordWeight } from './related-terms';
import { vocabularyVectors } from './semantic';
import { queryTerms, type QueryTerm } from './terms';
import {
  INDEXED_FIELDS,
  indexState,
  type CompiledPostings,
  type IndexedField,
  type IndexedTool,
  type IndexState,
  type TermWeight,
  type ToolIndex,
} from './tool-index';

/**
 * Ranked search over the tool catalog for `find_tool` (architecture §1): BM25F over one document per
 * tool (name, description, parameter names and descriptions, backend name), Porter2-stemmed
 * terms, spelling correction for words the catalog does not know, tools their own description
 * calls deprecated ranked below the rest, and a tool whose name the query covers ranked above one
 * that merely shares words with it. Pure: no I/O, no clock, no environment.
 *
 * Measured on public tool-retrieval sets (`npm run eval:discovery`, BENCHMARKS.md "Discovery"):
 * the constants below were chosen on the sets' tune parts only, and general methods only: no
 * rule here names a query or a tool.
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
  /** Restrict hits to tools the caller may see (architecture §10); applied before the top-k cut. */
  visible?: (tool: CatalogTool) => boolean;
  /** What was learned from use (architecture §1.2), one more signal; none by default. */
  learned?: LearnedSignal;
}

/** The first hits of a query in rank order, and whether they are all of its matches. */
export interface RankedMatches {
  readonly hits: readonly ToolHit[];
  /** True when no match was left out (the query had at most `topK` matches). */
  readonly complete: boolean;
}

/**
 * BM25F (Robertson and Zaragoza): a term's occurrences are weighted per field and normalized by
 * each field's length before one saturation, so a word in the name and again in the description
 * is not counted as two independent pieces of evidence. The name says most about what a tool
 * does and is what a model half-remembers; parameter names are a strong hint; parameter
 * descriptions are long and repetitive.
 */
const FIELD_WEIGHT: Readonly<Record<IndexedField, number>> = { name: 3, description: 1, params: 1.5, paramDescriptions: 0.5, backend: 1 };
const FIELD_LENGTH_NORM: Readonly<Record<IndexedField, number>> = { name: 0.75, description: 0.75, params: 0.75, paramDescriptions: 0.75, backend: 0.75 };
const K1 = 1.2;
const WEIGHTS = INDEXED_FIELDS.map((f) => FIELD_WEIGHT[f]);
const NORMS = INDEXED_FIELDS.map((f) => FIELD_LENGTH_NORM[f]);

/**
 * Name coverage: a tool's score is multiplied by 1 + this × the share of its name's words the
 * query matched (directly, corrected or through a related word). BM25F sums evidence term by
 * term, so a long description matching two common words can outscore a name the request spells
 * out whole ("current weather" against `get_current_weather`); a name is what a tool does, and
 * covering it is evidence beyond the sum. On the tune parts 0.2 raised recall@5 and MRR@10 of all
 * three sets (0.15 to 0.35 about alike, BENCHMARKS.md "Discovery").
 */
const NAME_COVERAGE_WEIGHT = 0.2;

/** A deprecated tool's score is multiplied by this: below a live tool of similar score. */
const DEPRECATED_FACTOR = 0.5;

/** Query words whose expansions are kept; past this the cache starts again (a few MB at most). */
const MAX_CACHED_WORDS = 20_000;

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
export function rankTerms(index: ToolIndex, terms: readonly QueryTerm[], opts: SearchToolsOptions): RankedMatches {
  const state = indexState(index);
  const topK = Number.isFinite(opts.topK) ? Math.floor(opts.topK) : 0;
  if (topK < 1) return { hits: [], complete: false };
  return terms.length === 0 ? browse(state, topK, opts) : rank(state, withAbbreviations(state, terms), topK, opts);
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

function rank(state: IndexState, terms: readonly QueryTerm[], topK: number, opts: SearchToolsOptions): RankedMatches {
  const { docs, scores } = scoreTerms(state, terms, opts.backend, opts.learned);
  // Only a candidate that would enter the top k is shown to the caller's filter: at 10,000 tools
  // thousands match a common word, and the filter runs once per candidate that could be kept.
  const best: RankedDoc[] = [];
  let matches = 0;
  for (let i = 0; i < docs.length; i += 1) {
    const doc = docs[i];
    const raw = scores[i];
    const score = Math.round((doc.deprecated ? raw * DEPRECATED_FACTOR : raw) * 1e4) / 1e4;
    if (score <= 0) continue;
    const ranked = { doc, score };
    if (best.length === topK && !ranksBefore(ranked, best[topK - 1])) {
      matches += 1;
      continue;
    }
    if (opts.visible !== undefined && !opts.visible(doc.tool)) continue;
    matches += 1;
    insertBounded(best, ranked, topK);
  }
  return { hits: best.map(({ doc, score }) => ({ tool: doc.tool, score })), complete: matches <= topK };
}

function compiledPostings(state: IndexState, term: string): CompiledPostings | undefined {
  const cached = state.compiled.get(term);
  if (cached !== undefined) return cached;
  const holders = state.postings.get(term);
  if (holders === undefined) return undefined;
  const total = state.byId.size;
  const averages = state.fieldTotals.map((sum) => Math.max(sum / total, 1));
  const idf = Math.log(1 + (total - holders.size + 0.5) / (holders.size + 0.5));
  const docs = [...holders];
  const values = new Float64Array(docs.length);
  const inName = new Uint8Array(docs.length);
  docs.forEach((doc, i) => {
    if (doc.nameTerms.includes(term)) inName[i] = 1;
    const counts = doc.counts.get(term) ?? [];
    let tf = 0;
    for (let field = 0; field < counts.length; field += 1) {
      if (counts[field] === 0) continue;
      tf += (WEIGHTS[field] * counts[field]) / (1 - NORMS[field] + (NORMS[field] * doc.lengths[field]) / averages[field]);
    }
    values[i] = (idf * tf) / (K1 + tf);
  });
  asServerWord(state, term, docs, values);
  const compiled = { docs, values, inName };
  state.compiled.set(term, compiled);
  return compiled;
}

/**
 * Each matching tool's BM25F score over the query's terms (and what they stand for), as two
 * parallel lists. Scores accumulate in arrays indexed by the tools' slots rather than in maps:
 * a common word matches thousands of tools in a large catalog.
 */
function scoreTerms(
  state: IndexState,
  terms: readonly QueryTerm[],
  backend: string | undefined,
  learned: LearnedSignal | undefined,
): { docs: IndexedTool[]; scores: number[] } {
  const { totals, best, nameHits } = scratchFor(state);
  const matched: IndexedTool[] = [];
  // A name word is covered once however many query words lead to it.
  const covered = new Set<string>();
  for (const { term: word, word: written, weight: queryWeight, implied } of terms) {
    // A word the request wrote counts by how general it is in English; a word a literal implies
    // ("number" for "12") already counts at its own, lower weight.
    const wordWeight = implied || written === undefined || state.lexicon === undefined ? queryWeight : queryWeight * requestWordWeight(state.lexicon, written);
    // A word's contribution to a tool is its best-matching stand-in, not their sum: a tool holding
    // three near-spellings of one word has not matched three words.
    const touched: IndexedTool[] = [];
    for (const { term, weight } of expansionsOf(state, word, written)) {
      const postings = compiledPostings(state, term);
      if (postings === undefined) continue;
      const factor = wordWeight * weight;
      const { docs, values, inName } = postings;
      const covers = !covered.has(term);
      if (covers) covered.add(term);
      for (let i = 0; i < docs.length; i += 1) {
        const doc = docs[i];
        if (backend !== undefined && doc.tool.backend !== backend) continue;
        const value = factor * values[i];
        if (!(value > 0)) continue;
        const slot = doc.slot;
        if (best[slot] === 0) touched.push(doc);
        if (value > best[slot]) best[slot] = value;
        if (covers) nameHits[slot] += inName[i];
      }
    }
    for (const doc of touched) {
      const slot = doc.slot;
      if (totals[slot] === 0) matched.push(doc);
      totals[slot] += best[slot];
      best[slot] = 0;
    }
  }
  const lifted = liftedByUse(state, terms, backend, learned, matched);
  const scores = matched.map((doc) => {
    const slot = doc.slot;
    const coverage = doc.nameTerms.length === 0 ? 0 : Math.min(1, nameHits[slot] / doc.nameTerms.length);
    return totals[slot] * (1 + NAME_COVERAGE_WEIGHT * coverage) + (lifted?.get(doc) ?? 0);
  });
  // Left all zero for the next query (`best` is zeroed word by word above).
  for (const doc of matched) {
    totals[doc.slot] = 0;
    nameHits[doc.slot] = 0;
  }
  return { docs: matched, scores };
}

/**
 * The score arrays, one slot per tool, kept with the index and reused by every query rather than
 * allocated per query (two arrays of 80 KB each at 10,000 tools); all zero between queries.
 */
function scratchFor(state: IndexState): IndexState['scratch'] {
  if (state.scratch.totals.length < state.slotCount) {
    const size = Math.max(state.slotCount, state.scratch.totals.length * 2);
    state.scratch = { totals: new Float64Array(size), best: new Float64Array(size), nameHits: new Float64Array(size) };
  }
  return state.scratch;
}

/**
 * What a query word stands for in this catalog: itself when the catalog has it, its spelling
 * corrections when it is neither a catalog word nor a word the lexicon knows (a typo, not a
 * synonym; against the catalog's words, else through the English word it misspells), and the catalog terms related to it by meaning (none for a word that only names a
 * server). Cached per word as written until the catalog changes.
 */
function expansionsOf(state: IndexState, term: string, written: string | undefined): readonly TermWeight[] {
  const key = written ?? term;
  const cached = state.expansions.get(key);
  if (cached !== undefined) return cached;
  const lexicon = written === undefined ? undefined : state.lexicon;
  let expansions: TermWeight[];
  if (state.postings.has(term)) expansions = [{ term, weight: 1 }];
  else if (lexicon !== undefined && written !== undefined && isKnownWord(lexicon, written)) expansions = [];
  else {
    expansions = corrections(state, term, written);
    if (expansions.length === 0 && lexicon !== undefined && written !== undefined) expansions = englishStandIns(state, lexicon, written);
  }
  // A word that only names a server stands for that server, not for what it means in English.
  if (lexicon !== undefined && written !== undefined && !serverWords(state).has(term)) {
    expansions.push(
      ...relatedTerms(lexicon, written, {
        hasTerm: (candidate) => state.postings.has(candidate),
        wordVectors: () => (state.wordVectors ??= vocabularyVectors(lexicon, state.words.keys())),
      }),
    );
  }
  // Words are the caller's: a stream of made-up ones must not grow the cache without bound.
  if (state.expansions.size >= MAX_CACHED_WORDS) state.expansions.clear();
  state.expansions.set(key, expansions);
  return expansions;
}

interface RankedDoc {
  doc: IndexedTool;
  score: number;
}

/**
 * Inserts into `best` (ordered by score, then id) and keeps at most `topK`. Comparing ids is
 * comparing (backend, name): the id is `backend NUL name`, and NUL sorts before every character
 * a name or backend can hold.
 */
function insertBounded(best: RankedDoc[], ranked: RankedDoc, topK: number): void {
  let at = best.length;
  while (at > 0 && ranksBefore(ranked, best[at - 1])) at -= 1;
  if (at >= topK) return;
  best.splice(at, 0, ranked);
  if (best.length > topK) best.pop();
}

function ranksBefore(a: RankedDoc, b: RankedDoc): boolean {
  return a.score > b.score || (a.score === b.score && a.doc.id < b.doc.id);
}

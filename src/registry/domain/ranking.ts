import MiniSearch, { type SearchOptions } from 'minisearch';
import type { CatalogTool } from '../registry.types';
import { normalizeTerm, queryTerms, tokenize } from './terms';

/**
 * Ranked search over the tool catalog for `find_tool` (DESIGN §1): BM25+ (minisearch) over the
 * tool name, description, parameters and backend name, typo-tolerant, with a small stop-word list,
 * plural folding and a handful of synonym folds. Pure: no I/O, no clock, no environment.
 *
 * Every weight and fold below was measured against `test/find-tool-queries.json` over the real
 * demo catalogs (`test/find-tool-recall.spec.ts`); change one only with that test's numbers.
 */

/** A built, immutable search index over one catalog version. Opaque to callers. */
export interface ToolIndex {
  readonly [INDEX_BRAND]: true;
}

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

declare const INDEX_BRAND: unique symbol;

interface IndexState {
  readonly search: MiniSearch<IndexedTool>;
  readonly byId: ReadonlyMap<string, CatalogTool>;
  /** Every tool sorted by backend, then name: the browse order and the tie-break order. */
  readonly sorted: readonly CatalogTool[];
  /** Every normalized term in the index: a query term found here is spelled right. */
  readonly vocabulary: ReadonlySet<string>;
}

interface IndexedTool {
  id: string;
  name: string;
  description: string;
  params: string;
  paramDescriptions: string;
  backend: string;
}

/**
 * Field boosts. The name says most about what a tool does and is what a model half-remembers;
 * parameter names are a strong hint ("pattern", "entityNames"); parameter descriptions are long
 * and repetitive, so they count for less than the description. The query set is flat around
 * these values (MRR 0.91..0.93 over name 1..6, params 1..2, parameter descriptions 0.25..1):
 * they are a sane middle, not a tuned optimum.
 */
const FIELD_BOOST = { name: 3, description: 1, params: 1.5, paramDescriptions: 0.5, backend: 1 } as const;

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

/** Schemas can be large; this much text of parameter names and descriptions is plenty to rank on. */
const MAX_PARAM_TEXT = 4000;
const MAX_SCHEMA_DEPTH = 4;

function fuzziness(term: string): number | false {
  if (term.length < FUZZY_MIN_LENGTH) return false;
  return Math.min(MAX_FUZZY, Math.max(1, Math.round(term.length * FUZZY_FRACTION)));
}

/** Text of every parameter name and description, nested objects and array items included. */
function collectParams(schema: unknown, names: string[], descriptions: string[], depth: number): void {
  if (depth > MAX_SCHEMA_DEPTH || !isRecord(schema)) return;
  const properties = schema['properties'];
  if (isRecord(properties)) {
    for (const [key, value] of Object.entries(properties)) {
      names.push(key);
      if (isRecord(value) && typeof value['description'] === 'string') descriptions.push(value['description']);
      collectParams(value, names, descriptions, depth + 1);
    }
  }
  const items = schema['items'];
  if (Array.isArray(items)) for (const item of items) collectParams(item, names, descriptions, depth + 1);
  else collectParams(items, names, descriptions, depth + 1);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const variants = schema[key];
    if (Array.isArray(variants)) for (const v of variants) collectParams(v, names, descriptions, depth + 1);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toIndexed(id: string, tool: CatalogTool): IndexedTool {
  const names: string[] = [];
  const descriptions: string[] = [];
  collectParams(tool.inputSchema, names, descriptions, 0);
  const title = tool.annotations?.title;
  return {
    id,
    name: tool.name,
    description: title === undefined ? tool.description : `${title}. ${tool.description}`,
    params: names.join(' ').slice(0, MAX_PARAM_TEXT),
    paramDescriptions: descriptions.join(' ').slice(0, MAX_PARAM_TEXT),
    backend: tool.backend,
  };
}

/**
 * Document id: unique per (backend, name), since names repeat across backends (DESIGN §4).
 * Backend names never hold a NUL (config validates them), so the id cannot collide.
 */
function toolId(tool: CatalogTool): string {
  return `${tool.backend}\u0000${tool.name}`;
}

function compareTools(a: CatalogTool, b: CatalogTool): number {
  if (a.backend !== b.backend) return a.backend < b.backend ? -1 : 1;
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return 0;
}

/**
 * Builds the search index for one catalog. A (backend, name) pair listed twice is indexed once,
 * the first entry winning, so a misbehaving backend cannot break the catalog.
 */
export function buildToolIndex(tools: readonly CatalogTool[]): ToolIndex {
  const byId = new Map<string, CatalogTool>();
  for (const tool of tools) {
    const id = toolId(tool);
    if (!byId.has(id)) byId.set(id, tool);
  }
  const vocabulary = new Set<string>();
  const search = new MiniSearch<IndexedTool>({
    fields: ['name', 'description', 'params', 'paramDescriptions', 'backend'],
    storeFields: [],
    tokenize: (text) => tokenize(text),
    // The vocabulary is gathered in the same pass that indexes, so it holds exactly the indexed terms.
    processTerm: (term) => {
      const normalized = normalizeTerm(term);
      if (normalized !== null) vocabulary.add(normalized);
      return normalized;
    },
  });
  search.addAll([...byId].map(([id, tool]) => toIndexed(id, tool)));
  const state: IndexState = { search, byId, sorted: [...byId.values()].sort(compareTools), vocabulary };
  return state as unknown as ToolIndex;
}

/**
 * Ranks the catalog against a free-text query. Hits are ordered by score (rounded to 4 decimals),
 * then backend, then name, so equal scores come back in a stable order. An empty or
 * stop-word-only query is a browse: the first `topK` tools by backend and name, score 0.
 * A query that matches nothing answers no hits. Never throws.
 */
/**
 * A zero document boost skips the document before it is scored, cheaper than a result filter; the
 * id starts with the backend and a NUL, which no backend name contains.
 */
function documentFilter(
  state: IndexState,
  backendPrefix: string | undefined,
  visible: ((tool: CatalogTool) => boolean) | undefined,
): ((id: string) => number) | undefined {
  if (backendPrefix === undefined && visible === undefined) return undefined;
  return (id: string) => {
    if (backendPrefix !== undefined && !id.startsWith(backendPrefix)) return 0;
    if (visible === undefined) return 1;
    const tool = state.byId.get(id);
    return tool !== undefined && visible(tool) ? 1 : 0;
  };
}

export function searchTools(index: ToolIndex, query: string, opts: SearchToolsOptions): ToolHit[] {
  const state = index as unknown as IndexState;
  const topK = Number.isFinite(opts.topK) ? Math.floor(opts.topK) : 0;
  if (topK < 1) return [];

  const terms = queryTerms(query);
  if (terms.length === 0) {
    const browse = state.sorted.filter(
      (tool) => (opts.backend === undefined || tool.backend === opts.backend) && (opts.visible === undefined || opts.visible(tool)),
    );
    return browse.slice(0, topK).map((tool) => ({ tool, score: 0 }));
  }

  const backendPrefix = opts.backend === undefined ? undefined : `${opts.backend}\u0000`;
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
    boostDocument: documentFilter(state, backendPrefix, opts.visible),
  };
  // minisearch answers every match sorted by raw score, so rounded scores never rise along the
  // list: once one falls below the last kept hit, nothing after it can enter. Ties at that score
  // (thousands, in a big catalog of look-alike tools) are settled by backend and name while
  // keeping only topK hits, never by sorting them all.
  const best: RankedId[] = [];
  for (const result of state.search.search(terms.join(' '), options)) {
    const score = Math.round(result.score * 1e4) / 1e4;
    if (best.length === topK && score < best[topK - 1].score) break;
    insertBounded(best, { id: result.id as string, score }, topK);
  }
  const hits: ToolHit[] = [];
  for (const { id, score } of best) {
    const tool = state.byId.get(id);
    if (tool !== undefined) hits.push({ tool, score });
  }
  return hits;
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

import MiniSearch, { type SearchOptions } from 'minisearch';
import type { CatalogTool, ToolAnnotations } from '../registry.types';
import { normalizeTerm, queryTerms, tokenize } from './terms';

/**
 * Ranked search over the tool catalog for `find_tool` (DESIGN §1): BM25+ (minisearch) over the
 * tool name, description, parameters and backend name, typo-tolerant, with a small stop-word list,
 * plural folding and a handful of synonym folds. Pure: no I/O, no clock, no environment.
 *
 * Every weight and fold below was measured against `test/find-tool-queries.json` over the real
 * demo catalogs (`test/find-tool-recall.spec.ts`); change one only with that test's numbers.
 */

/**
 * The search index of the whole catalog. Opaque to callers. It is updated in place, one backend
 * at a time ({@link replaceBackendTools}), so a refresh costs what that backend's tools cost.
 */
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

/** The first hits of a query in rank order, and whether they are all of its matches. */
export interface RankedMatches {
  readonly hits: readonly ToolHit[];
  /** True when no match was left out (the query had at most `topK` matches). */
  readonly complete: boolean;
}

declare const INDEX_BRAND: unique symbol;

interface IndexState {
  readonly search: MiniSearch<IndexedTool>;
  readonly byId: Map<string, CatalogTool>;
  /**
   * Each backend's tools sorted by name, the backends in name order: the browse order and the
   * tie-break order.
   */
  byBackend: Map<string, readonly CatalogTool[]>;
  /**
   * Every normalized term in the index with its number of indexed occurrences: a query term found
   * here is spelled right. Counted so that removing a backend's tools forgets only their words.
   */
  readonly vocabulary: Map<string, number>;
  /** What `processTerm` adds to a term's count: 1 while documents are added, -1 while removed. */
  readonly counting: { delta: 1 | -1 };
  /** Bumped by every change, so a cache of answers knows when it is stale. */
  version: number;
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

/**
 * Builds the search index for one catalog. A (backend, name) pair listed twice is indexed once,
 * the first entry winning, so a misbehaving backend cannot break the catalog.
 */
export function buildToolIndex(tools: readonly CatalogTool[]): ToolIndex {
  const vocabulary = new Map<string, number>();
  const counting: { delta: 1 | -1 } = { delta: 1 };
  const search = new MiniSearch<IndexedTool>({
    fields: ['name', 'description', 'params', 'paramDescriptions', 'backend'],
    storeFields: [],
    tokenize: (text) => tokenize(text),
    // minisearch calls this once per indexed occurrence, and again per occurrence when it removes
    // a document, so the counts stay exactly those of the indexed terms.
    processTerm: (term) => {
      const normalized = normalizeTerm(term);
      if (normalized !== null) {
        const count = (vocabulary.get(normalized) ?? 0) + counting.delta;
        if (count > 0) vocabulary.set(normalized, count);
        else vocabulary.delete(normalized);
      }
      return normalized;
    },
  });
  const state: IndexState = { search, byId: new Map(), byBackend: new Map(), vocabulary, counting, version: 0 };
  const index = state as unknown as ToolIndex;
  const byBackend = new Map<string, CatalogTool[]>();
  for (const tool of tools) {
    const list = byBackend.get(tool.backend);
    if (list) list.push(tool);
    else byBackend.set(tool.backend, [tool]);
  }
  for (const [backend, list] of byBackend) replaceBackendTools(index, backend, list);
  return index;
}

/**
 * Replaces one backend's tools in the index, in place: a tool whose indexed text did not change
 * keeps its document (only the catalog entry it answers with is renewed, so annotations stay
 * current), a changed tool is removed and added again, a gone one removed. The cost is that of the
 * backend's tools, not of the catalog (a rebuild of 10,000 tools took ~300 ms of event loop).
 * Removal is exact (minisearch `remove`, not `discard`): document frequencies and field lengths
 * are those of a fresh build, so scores do not drift with refreshes. Tools naming another backend
 * are ignored; a name listed twice keeps its first entry. Synchronous, so no search runs halfway.
 */
export function replaceBackendTools(index: ToolIndex, backend: string, tools: readonly CatalogTool[]): void {
  const state = index as unknown as IndexState;
  const next = new Map<string, CatalogTool>();
  for (const tool of tools) if (tool.backend === backend && !next.has(tool.name)) next.set(tool.name, tool);
  const previous = state.byBackend.get(backend);
  // A refresh that changes nothing (the usual answer to a periodic or spurious list_changed)
  // leaves the index and its version alone, so cached rankings stay valid.
  if (previous !== undefined && previous.length === next.size && previous.every((old) => sameTool(old, next.get(old.name)))) return;
  const stale: IndexedTool[] = [];
  const fresh: IndexedTool[] = [];
  const kept = new Set<string>();
  for (const old of previous ?? []) {
    const id = toolId(old);
    const tool = next.get(old.name);
    if (tool === old) {
      kept.add(old.name);
      continue;
    }
    const before = toIndexed(id, old);
    const after = tool === undefined ? undefined : toIndexed(id, tool);
    if (after !== undefined && sameText(before, after)) {
      kept.add(old.name);
      continue;
    }
    stale.push(before);
    if (after !== undefined) {
      kept.add(old.name);
      fresh.push(after);
    }
    if (tool === undefined) state.byId.delete(id);
  }
  for (const [name, tool] of next) if (!kept.has(name)) fresh.push(toIndexed(toolId(tool), tool));

  state.counting.delta = -1;
  for (const doc of stale) state.search.remove(doc);
  state.counting.delta = 1;
  for (const doc of fresh) state.search.add(doc);
  for (const tool of next.values()) state.byId.set(toolId(tool), tool);

  const sorted = [...next.values()].sort(compareNames);
  if (state.byBackend.has(backend)) state.byBackend.set(backend, sorted);
  else {
    state.byBackend.set(backend, sorted);
    state.byBackend = new Map([...state.byBackend].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
  state.version += 1;
}

/** Changes whenever the index does; equal versions of one index answer every query alike. */
export function indexVersion(index: ToolIndex): number {
  return (index as unknown as IndexState).version;
}

/** Equal in everything a search answers with: the indexed text, the annotations, the schema. */
function sameTool(a: CatalogTool, b: CatalogTool | undefined): boolean {
  if (a === b) return true;
  if (b === undefined || a.name !== b.name || a.description !== b.description) return false;
  const hints = new Set([...Object.keys(a.annotations ?? {}), ...Object.keys(b.annotations ?? {})]) as Set<keyof ToolAnnotations>;
  for (const hint of hints) if (a.annotations?.[hint] !== b.annotations?.[hint]) return false;
  return JSON.stringify(a.inputSchema) === JSON.stringify(b.inputSchema);
}

function sameText(a: IndexedTool, b: IndexedTool): boolean {
  return a.name === b.name && a.description === b.description && a.params === b.params && a.paramDescriptions === b.paramDescriptions;
}

function compareNames(a: CatalogTool, b: CatalogTool): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
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
  const state = index as unknown as IndexState;
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

import { isJsonObject } from '../../common/json-object';
import type { CatalogTool, ToolAnnotations } from '../../registry/registry.types';
import { ownTools } from '../../registry/domain/resolve';
import type { Lexicon, VocabularyVectors } from './semantic';
import { nameWords, normalizeTerm, tokenize } from './terms';

/**
 * The search index of the tool catalog for `find_tool` (architecture §1), kept up to date one backend
 * at a time: what is indexed of each tool (name, description, parameters, backend) and how a
 * backend's refresh changes it. An inverted index of normalized terms with per-field counts, for
 * BM25F; ranking queries against it is `ranking.ts`. Pure: no I/O, no clock.
 */

/**
 * The search index of the whole catalog. Opaque to callers. It is updated in place, one backend
 * at a time ({@link replaceBackendTools}), so a refresh costs what that backend's tools cost.
 */
export interface ToolIndex {
  readonly [INDEX_BRAND]: true;
}

declare const INDEX_BRAND: unique symbol;

/** The fields indexed per tool, in the order of {@link IndexedTool.lengths}. */
export const INDEXED_FIELDS = ['name', 'description', 'params', 'paramDescriptions', 'backend'] as const;
export type IndexedField = (typeof INDEXED_FIELDS)[number];
const FIELD_COUNT = INDEXED_FIELDS.length;

/** One tool as indexed: its catalog entry, its text per field and the counts BM25F needs. */
export interface IndexedTool {
  /** `backend NUL name`: unique, and ordering ids orders by (backend, name). */
  readonly id: string;
  tool: CatalogTool;
  readonly text: readonly string[];
  /** Number of terms per field. */
  readonly lengths: readonly number[];
  /** Each term's number of occurrences per field. */
  readonly counts: ReadonlyMap<string, readonly number[]>;
  /** The description says the tool is deprecated: it ranks below its replacement. */
  readonly deprecated: boolean;
  /**
   * The distinct terms of its name's words (`read_text_file` → `read`, `text`, `file`; the
   * compound left out): how much of the name a query covers is a signal of the ranking.
   */
  readonly nameTerms: readonly string[];
  /** The words of its name in order, lowercase (`read_text_file` → `read`, `text`, `file`): abbreviations are read against them. */
  readonly nameWords: readonly string[];
  /** The plain words (lowercase letters only) of its text, unstemmed, each once. */
  readonly words: readonly string[];
  /** Its place in the ranking's score arrays, unique among the indexed tools (freed ones are reused). */
  slot: number;
}

/**
 * A term's postings as the ranking reads them: the tools holding it and, for each, its BM25F
 * contribution at weight 1 (idf × saturated field-weighted frequency). Computed once per term
 * and catalog version by `ranking.ts`, so a query costs one multiply-add per matching tool and
 * stand-in.
 */
export interface CompiledPostings {
  readonly docs: readonly IndexedTool[];
  readonly values: Float64Array;
  /** 1 where the term is one of the tool's name words ({@link IndexedTool.nameTerms}). */
  readonly inName: Uint8Array;
}

/** The index's inside, for `ranking.ts`: nothing else looks in. */
export interface IndexState {
  readonly byId: Map<string, IndexedTool>;
  /**
   * Each backend's tools sorted by name, the backends in name order: the browse order and the
   * tie-break order.
   */
  byBackend: Map<string, readonly CatalogTool[]>;
  /** Term → the tools holding it. A term found here is a catalog word (spelled right). */
  readonly postings: Map<string, Set<IndexedTool>>;
  /** Sum of each field's length over all tools, for the average lengths of BM25F. */
  readonly fieldTotals: number[];
  /**
   * Every plain word of the catalog, unstemmed, with the number of tools using it: what a query
   * word's related words (WordNet, word vectors) are looked for among.
   */
  readonly words: Map<string, number>;
  /**
   * Per query word, the catalog terms it stands for and their weights (itself, or its spelling
   * corrections): worked out once per word, since the words of queries repeat even when the
   * queries do not. Cleared by every change to the catalog.
   */
  readonly expansions: Map<string, readonly TermWeight[]>;
  /**
   * Per request word read as an abbreviation, the words it stands for (none: not one), worked out
   * once per word (`abbreviations.ts`). Cleared by every change to the catalog.
   */
  readonly abbreviations: Map<string, { readonly words: readonly string[]; readonly weight: number }>;
  /** The catalog's terms sorted, and by length, for spelling correction; built when first needed. */
  vocabulary: Vocabulary | undefined;
  /** The catalog's plain words ({@link words}) arranged alike, for correcting a word as written. */
  wordVocabulary: Vocabulary | undefined;
  /** The terms that only name servers (`server-words.ts`), worked out when first needed after a change. */
  serverWords: ReadonlyMap<string, ReadonlySet<string>> | undefined;
  /** The offline lexicon for word meanings; without it the ranking is lexical only. */
  readonly lexicon: Lexicon | undefined;
  /** The vectors of {@link words}, built when first needed after a change. */
  wordVectors: VocabularyVectors | undefined;
  /** Slots of removed tools, for reuse; `slotCount` is one more than the highest slot ever given. */
  readonly freeSlots: number[];
  slotCount: number;
  /**
   * Per term, what the ranking precomputed from its postings for the current catalog (scores
   * depend on the catalog's average field lengths and the term's document frequency). Cleared by
   * every change.
   */
  readonly compiled: Map<string, CompiledPostings>;
  /** The ranking's per-slot score arrays, reused by every query (see `ranking.ts`). */
  scratch: { totals: Float64Array; best: Float64Array; nameHits: Float64Array };
  /** Term normalization is the cost of indexing: each distinct token is normalized once. */
  readonly normalized: Map<string, string | null>;
  /** Bumped by every change, so a cache of answers knows when it is stale. */
  version: number;
}

/** Options of {@link buildToolIndex}. */
export interface ToolIndexOptions {
  /** The offline lexicon (`discovery/lexicon.ts`): related words by meaning join the ranking. */
  lexicon?: Lexicon;
}

/** The catalog's terms, arranged for finding near spellings and prefixes. */
export interface Vocabulary {
  readonly sorted: readonly string[];
  /** Terms by first letter and length. */
  readonly byStart: ReadonlyMap<string, readonly string[]>;
}

/** A catalog term a query word stands for, and how much a match on it counts (1 = the word itself). */
export interface TermWeight {
  readonly term: string;
  readonly weight: number;
}

/** Schemas can be large; this much text of parameter names and descriptions is plenty to rank on. */
const MAX_PARAM_TEXT = 4000;
const MAX_SCHEMA_DEPTH = 4;

/** Text of every parameter name, description and enumerated value, nested objects and array items included. */
function collectParams(schema: unknown, names: string[], descriptions: string[], depth: number): void {
  if (depth > MAX_SCHEMA_DEPTH || !isJsonObject(schema)) return;
  const properties = schema['properties'];
  if (isJsonObject(properties)) {
    for (const [key, value] of Object.entries(properties)) {
      names.push(key);
      if (isJsonObject(value) && typeof value['description'] === 'string') descriptions.push(value['description']);
      // The values a parameter accepts are the words of what the tool handles ("celsius", "pdf").
      if (isJsonObject(value) && Array.isArray(value['enum'])) descriptions.push(value['enum'].filter((v) => typeof v === 'string').join(' '));
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

/**
 * "Deprecated" in a tool's own description (or title): its author says to use another tool. A
 * general signal, written by the backend, not a list of tools.
 */
const DEPRECATED = /\bdeprecated\b/i;

function fieldTexts(tool: CatalogTool): string[] {
  const names: string[] = [];
  const descriptions: string[] = [];
  collectParams(tool.inputSchema, names, descriptions, 0);
  const title = tool.annotations?.title;
  return [
    tool.name,
    title === undefined ? tool.description : `${title}. ${tool.description}`,
    names.join(' ').slice(0, MAX_PARAM_TEXT),
    descriptions.join(' ').slice(0, MAX_PARAM_TEXT),
    tool.backend,
  ];
}

const PLAIN_WORD = /^[a-z]{2,}$/;

/** Distinct tokens whose normalization is remembered; past this the memo starts again. */
const MAX_MEMO = 100_000;

function normalizeMemo(memo: Map<string, string | null>, token: string): string | null {
  let term = memo.get(token);
  if (term === undefined) {
    if (memo.size >= MAX_MEMO) memo.clear();
    term = normalizeTerm(token);
    memo.set(token, term);
  }
  return term;
}

function toIndexed(id: string, tool: CatalogTool, memo: Map<string, string | null>): IndexedTool {
  const text = fieldTexts(tool);
  const counts = new Map<string, number[]>();
  const lengths: number[] = [];
  const words = new Set<string>();
  for (let field = 0; field < FIELD_COUNT; field += 1) {
    let length = 0;
    for (const token of tokenize(text[field])) {
      const term = normalizeMemo(memo, token);
      if (term === null) continue;
      if (PLAIN_WORD.test(token)) words.add(token);
      length += 1;
      let perField = counts.get(term);
      if (perField === undefined) {
        perField = new Array<number>(FIELD_COUNT).fill(0);
        counts.set(term, perField);
      }
      perField[field] += 1;
    }
    lengths.push(length);
  }
  const nameTerms = new Set<string>();
  const ownNameWords = nameWords(text[0]);
  for (const word of ownNameWords) {
    const term = normalizeMemo(memo, word);
    if (term !== null) nameTerms.add(term);
  }
  return {
    id,
    tool,
    text,
    lengths,
    counts,
    deprecated: DEPRECATED.test(text[1]),
    nameTerms: [...nameTerms],
    nameWords: ownNameWords,
    words: [...words],
    slot: -1,
  };
}

/**
 * Document id: unique per (backend, name), since names repeat across backends (architecture §4).
 * Backend names never hold a NUL (config validates them), so the id cannot collide.
 */
function toolId(tool: CatalogTool): string {
  return `${tool.backend}\u0000${tool.name}`;
}

/**
 * Builds the search index for one catalog. A (backend, name) pair listed twice is indexed once,
 * the first entry winning, so a misbehaving backend cannot break the catalog.
 */
export function buildToolIndex(tools: readonly CatalogTool[], options: ToolIndexOptions = {}): ToolIndex {
  const state: IndexState = {
    byId: new Map(),
    byBackend: new Map(),
    postings: new Map(),
    fieldTotals: new Array<number>(FIELD_COUNT).fill(0),
    words: new Map(),
    expansions: new Map(),
    abbreviations: new Map(),
    vocabulary: undefined,
    wordVocabulary: undefined,
    serverWords: undefined,
    lexicon: options.lexicon,
    wordVectors: undefined,
    freeSlots: [],
    slotCount: 0,
    compiled: new Map(),
    scratch: { totals: new Float64Array(0), best: new Float64Array(0), nameHits: new Float64Array(0) },
    normalized: new Map(),
    version: 0,
  };
  // The brand's construction: the state is the index, opaque to everyone but this file and ranking.
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
 * backend's tools, not of the catalog. Removal is exact: document frequencies and field lengths
 * are those of a fresh build, so scores do not drift with refreshes. Tools naming another backend
 * are ignored; a name listed twice keeps its first entry. Synchronous, so no search runs halfway.
 */
export function replaceBackendTools(index: ToolIndex, backend: string, tools: readonly CatalogTool[]): void {
  const state = indexState(index);
  const next = new Map(ownTools(backend, tools).map((tool) => [tool.name, tool]));
  const previous = state.byBackend.get(backend);
  // A refresh that changes nothing (the usual answer to a periodic or spurious list_changed)
  // leaves the index and its version alone, so cached rankings stay valid.
  if (previous !== undefined && previous.length === next.size && previous.every((old) => sameTool(old, next.get(old.name)))) return;
  for (const old of previous ?? []) {
    const id = toolId(old);
    const doc = state.byId.get(id);
    const tool = next.get(old.name);
    if (doc === undefined) continue;
    if (tool !== undefined && sameText(doc.text, fieldTexts(tool))) {
      doc.tool = tool;
      continue;
    }
    removeDoc(state, doc);
  }
  for (const tool of next.values()) {
    const id = toolId(tool);
    if (!state.byId.has(id)) addDoc(state, toIndexed(id, tool, state.normalized));
  }

  const sorted = [...next.values()].sort(compareNames);
  if (state.byBackend.has(backend)) state.byBackend.set(backend, sorted);
  else {
    state.byBackend.set(backend, sorted);
    state.byBackend = new Map([...state.byBackend].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
  state.expansions.clear();
  state.abbreviations.clear();
  state.vocabulary = undefined;
  state.wordVocabulary = undefined;
  state.serverWords = undefined;
  state.wordVectors = undefined;
  state.compiled.clear();
  state.version += 1;
}

function addDoc(state: IndexState, doc: IndexedTool): void {
  doc.slot = state.freeSlots.pop() ?? state.slotCount++;
  state.byId.set(doc.id, doc);
  for (let field = 0; field < FIELD_COUNT; field += 1) state.fieldTotals[field] += doc.lengths[field];
  for (const word of doc.words) state.words.set(word, (state.words.get(word) ?? 0) + 1);
  for (const term of doc.counts.keys()) {
    const holders = state.postings.get(term);
    if (holders === undefined) state.postings.set(term, new Set([doc]));
    else holders.add(doc);
  }
}

function removeDoc(state: IndexState, doc: IndexedTool): void {
  state.freeSlots.push(doc.slot);
  state.byId.delete(doc.id);
  for (let field = 0; field < FIELD_COUNT; field += 1) state.fieldTotals[field] -= doc.lengths[field];
  for (const word of doc.words) {
    const count = (state.words.get(word) ?? 0) - 1;
    if (count > 0) state.words.set(word, count);
    else state.words.delete(word);
  }
  for (const term of doc.counts.keys()) {
    const holders = state.postings.get(term);
    holders?.delete(doc);
    if (holders?.size === 0) state.postings.delete(term);
  }
}

/** Changes whenever the index does; equal versions of one index answer every query alike. */
export function indexVersion(index: ToolIndex): number {
  return indexState(index).version;
}

/** Equal in everything a search answers with: the indexed text, the annotations, the schema. */
function sameTool(a: CatalogTool, b: CatalogTool | undefined): boolean {
  if (a === b) return true;
  if (b === undefined || a.name !== b.name || a.description !== b.description) return false;
  // Object.keys types its keys as string, not as the interface's keys it iterates.
  const hints = new Set([...Object.keys(a.annotations ?? {}), ...Object.keys(b.annotations ?? {})]) as Set<keyof ToolAnnotations>;
  for (const hint of hints) if (a.annotations?.[hint] !== b.annotations?.[hint]) return false;
  return JSON.stringify(a.inputSchema) === JSON.stringify(b.inputSchema);
}

function sameText(a: readonly string[], b: readonly string[]): boolean {
  return a.every((text, field) => text === b[field]);
}

function compareNames(a: CatalogTool, b: CatalogTool): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** The index's inside (see {@link IndexState}). */
export function indexState(index: ToolIndex): IndexState {
  // The brand undone: every ToolIndex is an IndexState made by buildToolIndex.
  return index as unknown as IndexState;
}

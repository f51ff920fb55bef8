import MiniSearch from 'minisearch';
import type { CatalogTool, ToolAnnotations } from '../registry.types';
import { ownTools } from './resolve';
import { normalizeTerm, tokenize } from './terms';

/**
 * The search index of the tool catalog for `find_tool` (DESIGN §1), kept up to date one backend
 * at a time: what is indexed of each tool (name, description, parameters, backend) and how a
 * backend's refresh changes it. Ranking queries against it is `ranking.ts`. Pure: no I/O, no clock.
 */

/**
 * The search index of the whole catalog. Opaque to callers. It is updated in place, one backend
 * at a time ({@link replaceBackendTools}), so a refresh costs what that backend's tools cost.
 */
export interface ToolIndex {
  readonly [INDEX_BRAND]: true;
}

declare const INDEX_BRAND: unique symbol;

/** The index's inside, for `ranking.ts`: nothing else looks in. */
export interface IndexState {
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

export interface IndexedTool {
  id: string;
  name: string;
  description: string;
  params: string;
  paramDescriptions: string;
  backend: string;
}

/** The fields indexed per tool; `ranking.ts` boosts them by name. */
export const INDEXED_FIELDS = ['name', 'description', 'params', 'paramDescriptions', 'backend'] as const;

/** Schemas can be large; this much text of parameter names and descriptions is plenty to rank on. */
const MAX_PARAM_TEXT = 4000;
const MAX_SCHEMA_DEPTH = 4;

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
    fields: [...INDEXED_FIELDS],
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
  const state = indexState(index);
  const next = new Map(ownTools(backend, tools).map((tool) => [tool.name, tool]));
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
  return indexState(index).version;
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


/** The index's inside (see {@link IndexState}). */
export function indexState(index: ToolIndex): IndexState {
  return index as unknown as IndexState;
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { buildToolIndex, replaceBackendTools, type ToolIndex } from './domain/tool-index';
import { diffCatalog } from './domain/catalog-diff';
import { fuseRankings, RRF_K } from './domain/rank-fusion';
import { ownTools, replaceBackendNames, resolveTool, type Resolution } from './domain/resolve';
import { SearchCache } from './domain/search-cache';
import type { Lexicon } from './domain/semantic';
import { EmbeddingsService } from './embeddings.service';
import { LEXICON } from './lexicon';
import type { CatalogTool } from './registry.types';

/** One ranked search hit. */
export interface SearchHit {
  tool: CatalogTool;
  score: number;
}

/**
 * Candidates taken from each ranking for the fusion: beyond `find_tool`'s largest top_k (10), so
 * a tool ranked modestly by both can still come out on top, and within the lexical ranking cache's
 * depth (32), so repeated queries stay cached.
 */
const FUSION_DEPTH = 30;

/**
 * The catalog of every backend's tools. Backends push what they discover (so the registry never
 * depends on backends).
 *
 * A refresh updates the catalog in place, one backend's share only, so it costs what that
 * backend's tools cost (a full rebuild cost ~300 ms of event loop at 10,000 tools, for any
 * backend's refresh). It stays atomic for readers: `replaceTools` runs to its end without
 * awaiting, and every read (`resolve`, `sizes`, and `search` once it has its query's embedding)
 * is synchronous too, so no reader runs while a refresh is halfway; each sees the catalog wholly
 * before or wholly after it.
 */
@Injectable()
export class RegistryService {
  private readonly logger = new Logger(RegistryService.name);
  private readonly byBackend = new Map<string, readonly CatalogTool[]>();
  private readonly byName = new Map<string, CatalogTool[]>();
  private readonly index: ToolIndex;
  private readonly searches = new SearchCache();
  private readonly listeners: ((backend: string, tools: readonly CatalogTool[]) => void)[] = [];

  constructor(
    private readonly embeddings: EmbeddingsService,
    @Inject(LEXICON) lexicon: Lexicon | undefined,
  ) {
    this.index = buildToolIndex([], { lexicon });
  }

  /**
   * Replaces one backend's tools. A backend that goes down keeps its last known tools (architecture §4),
   * so callers only ever replace, never clear, on disconnect. Tools naming another backend are
   * ignored, and a name listed twice keeps its first entry, so resolution stays exact.
   */
  replaceTools(backend: string, tools: readonly CatalogTool[]): void {
    const own = ownTools(backend, tools);
    const previous = this.byBackend.get(backend);
    replaceBackendTools(this.index, backend, own);
    replaceBackendNames(this.byName, backend, previous ?? [], own);
    this.byBackend.set(backend, own);
    this.embeddings.catalogChanged(backend, own);
    // Synchronously, before any reader runs: a listener's verdict (trust pins) is in place with the catalog.
    for (const listener of this.listeners) listener(backend, own);
    const diff = previous ? diffCatalog(previous, own) : undefined;
    this.logger.log({
      msg: 'catalog updated',
      backend,
      tools: own.length,
      ...(diff && (diff.added.length > 0 || diff.removed.length > 0) ? { added: diff.added, removed: diff.removed } : {}),
    });
    // What the read gate lets through may have changed: say which tool, and how, every time.
    for (const change of diff?.annotationsChanged ?? []) {
      this.logger.warn({ msg: 'tool annotations changed', backend, ...change });
    }
  }

  /**
   * Calls `listener` with a backend's tools each time they are replaced, in the same turn, so a
   * module that judges tools (trust pins) has judged them before any reader sees them.
   */
  onCatalogReplaced(listener: (backend: string, tools: readonly CatalogTool[]) => void): void {
    this.listeners.push(listener);
  }

  /** True once the backend has delivered a catalog at least once. */
  hasCatalog(backend: string): boolean {
    return this.byBackend.has(backend);
  }

  /** The backend's tools as last delivered (empty before its first catalog). */
  toolsOf(backend: string): readonly CatalogTool[] {
    return this.byBackend.get(backend) ?? [];
  }

  /** Number of tools per backend. */
  sizes(): Map<string, number> {
    return new Map([...this.byBackend].map(([b, tools]) => [b, tools.length]));
  }

  /** Exact resolution among the tools `visible` admits (default: all). */
  resolve(name: string, server?: string, visible?: (tool: CatalogTool) => boolean): Resolution {
    return resolveTool(this.byName, name, server, visible);
  }

  /**
   * Ranked search among the tools `visible` admits (default: all). Repeated queries are answered
   * from a cache of caller-independent rankings, filtered per caller on every search.
   *
   * With an embeddings endpoint configured, the lexical ranking is fused with the dense one
   * (cosine to the query's embedding, among the same visible tools of the same backend) by
   * reciprocal-rank fusion over the first {@link FUSION_DEPTH} of each; `score` is then the fused
   * score. When the endpoint fails or is slow the answer is the lexical ranking alone, never an
   * error (see EmbeddingsService).
   */
  async search(query: string, topK: number, backend?: string, visible?: (tool: CatalogTool) => boolean): Promise<SearchHit[]> {
    const queryVector = this.embeddings.enabled ? await this.embeddings.queryVector(query) : undefined;
    // Both rankings are taken after the only await, so they read one state of the catalog.
    if (queryVector === undefined) return this.searches.search(this.index, query, { topK, backend, visible });
    const depth = Math.max(topK, FUSION_DEPTH);
    const lexical = this.searches.search(this.index, query, { topK: depth, backend, visible });
    // Hits scored 0 are a browse (a query of stop words only): a listing in name order, not evidence.
    const lexicalTools = lexical.filter((hit) => hit.score > 0).map((hit) => hit.tool);
    const dense = this.embeddings.rank(queryVector, this.candidates(backend), depth, visible);
    return fuseRankings([lexicalTools, dense], toolKey, { k: RRF_K, depth })
      .slice(0, topK)
      .map(({ item, score }) => ({ tool: item, score: Math.round(score * 1e4) / 1e4 }));
  }

  /** Every tool of the catalog, or of one backend. */
  private *candidates(backend: string | undefined): Generator<CatalogTool> {
    const lists = backend === undefined ? this.byBackend.values() : [this.byBackend.get(backend) ?? []];
    for (const tools of lists) yield* tools;
  }
}

/** Backend names hold no NUL (config validates them), so the key is unique per (backend, name). */
function toolKey(tool: CatalogTool): string {
  return `${tool.backend}\u0000${tool.name}`;
}

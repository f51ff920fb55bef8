import { Inject, Injectable, Optional } from '@nestjs/common';
import { LearningService } from '../learning/learning.service';
import { RegistryService } from '../registry/registry.service';
import type { CatalogTool } from '../registry/registry.types';
import { fuseRankings, RRF_K } from './domain/rank-fusion';
import { SearchCache } from './domain/search-cache';
import type { Lexicon } from './domain/semantic';
import { buildToolIndex, replaceBackendTools, type ToolIndex } from './domain/tool-index';
import { EmbeddingsService } from './embeddings.service';
import { LEXICON } from './lexicon';

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
 * Ranked search over the registry's catalog. The search index and the embeddings follow the
 * catalog through its change event, in the turn of each refresh, so a search reads one state of
 * the catalog: the registry's, wholly before or wholly after a refresh.
 */
@Injectable()
export class ToolSearchService {
  private readonly index: ToolIndex;
  private readonly searches = new SearchCache();

  constructor(
    private readonly registry: RegistryService,
    private readonly embeddings: EmbeddingsService,
    @Inject(LEXICON) lexicon: Lexicon | undefined,
    // Absent where a test builds the search alone: nothing is learned then.
    @Optional() private readonly learning?: LearningService,
  ) {
    this.index = buildToolIndex([], { lexicon });
    // Catalogs delivered before this service existed are indexed as if they had just arrived.
    for (const backend of registry.backends()) this.catalogReplaced(backend, registry.toolsOf(backend));
    registry.onCatalogReplaced((backend, tools) => this.catalogReplaced(backend, tools));
  }

  /**
   * Ranked search among the tools `visible` admits (default: all), with what was learned from use
   * (architecture §1.2) as one more lexical signal. Repeated queries are answered
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
    const learned = this.learning?.signal();
    if (queryVector === undefined) return this.searches.search(this.index, query, { topK, backend, visible, learned });
    const depth = Math.max(topK, FUSION_DEPTH);
    const lexical = this.searches.search(this.index, query, { topK: depth, backend, visible, learned });
    // Hits scored 0 are a browse (a query of stop words only): a listing in name order, not evidence.
    const lexicalTools = lexical.filter((hit) => hit.score > 0).map((hit) => hit.tool);
    const candidates = backend === undefined ? this.registry.allTools() : this.registry.toolsOf(backend);
    const dense = this.embeddings.rank(queryVector, candidates, depth, visible);
    return fuseRankings([lexicalTools, dense], toolKey, { k: RRF_K, depth })
      .slice(0, topK)
      .map(({ item, score }) => ({ tool: item, score: Math.round(score * 1e4) / 1e4 }));
  }

  /**
   * The lexical ranking alone among the tools `visible` admits: for what the answer says beside
   * its hits, where asking the embeddings endpoint again would cost a request and prove nothing more.
   */
  lexicalSearch(query: string, topK: number, backend?: string, visible?: (tool: CatalogTool) => boolean): SearchHit[] {
    return this.searches.search(this.index, query, { topK, backend, visible });
  }

  /** Synchronous and in the refresh's turn; the embedding itself runs later (EmbeddingsService). */
  private catalogReplaced(backend: string, tools: readonly CatalogTool[]): void {
    replaceBackendTools(this.index, backend, tools);
    this.embeddings.catalogChanged(backend, tools);
  }
}

/** Backend names hold no NUL (config validates them), so the key is unique per (backend, name). */
function toolKey(tool: CatalogTool): string {
  return `${tool.backend}\u0000${tool.name}`;
}

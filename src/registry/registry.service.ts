import { Inject, Injectable, Logger } from '@nestjs/common';
import { buildToolIndex, replaceBackendTools, type ToolIndex } from './domain/tool-index';
import { diffCatalog } from './domain/catalog-diff';
import { ownTools, replaceBackendNames, resolveTool, type Resolution } from './domain/resolve';
import { SearchCache } from './domain/search-cache';
import type { Lexicon } from './domain/semantic';
import { LEXICON } from './lexicon';
import type { CatalogTool } from './registry.types';

/**
 * The catalog of every backend's tools. Backends push what they discover (so the registry never
 * depends on backends).
 *
 * A refresh updates the catalog in place, one backend's share only, so it costs what that
 * backend's tools cost (a full rebuild cost ~300 ms of event loop at 10,000 tools, for any
 * backend's refresh). It stays atomic for readers: `replaceTools` runs to its end without
 * awaiting, and every read (`resolve`, `search`, `sizes`) is synchronous too, so no reader runs
 * while a refresh is halfway; each sees the catalog wholly before or wholly after it.
 */
@Injectable()
export class RegistryService {
  private readonly logger = new Logger(RegistryService.name);
  private readonly byBackend = new Map<string, readonly CatalogTool[]>();
  private readonly byName = new Map<string, CatalogTool[]>();
  private readonly index: ToolIndex;
  private readonly searches = new SearchCache();

  constructor(@Inject(LEXICON) lexicon: Lexicon | undefined) {
    this.index = buildToolIndex([], { lexicon });
  }

  /**
   * Replaces one backend's tools. A backend that goes down keeps its last known tools (DESIGN §4),
   * so callers only ever replace, never clear, on disconnect. Tools naming another backend are
   * ignored, and a name listed twice keeps its first entry, so resolution stays exact.
   */
  replaceTools(backend: string, tools: readonly CatalogTool[]): void {
    const own = ownTools(backend, tools);
    const previous = this.byBackend.get(backend);
    replaceBackendTools(this.index, backend, own);
    replaceBackendNames(this.byName, backend, previous ?? [], own);
    this.byBackend.set(backend, own);
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
   */
  search(query: string, topK: number, backend?: string, visible?: (tool: CatalogTool) => boolean): { tool: CatalogTool; score: number }[] {
    return this.searches.search(this.index, query, { topK, backend, visible });
  }
}

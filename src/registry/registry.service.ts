import { Injectable, Logger } from '@nestjs/common';
import { catalogChanged, diffCatalog } from './domain/catalog-diff';
import { ownTools, replaceBackendNames, resolveTool, type Resolution } from './domain/resolve';
import type { CatalogTool } from './registry.types';

/** Called with a backend's tools each time they are replaced (see {@link RegistryService.onCatalogReplaced}). */
export type CatalogListener = (backend: string, tools: readonly CatalogTool[]) => void;

/**
 * The catalog of every backend's tools. Backends push what they discover (so the registry never
 * depends on backends), and modules that derive state from the catalog (the search index, the
 * trust pins) subscribe to its changes (so the registry never depends on them either).
 *
 * A refresh updates the catalog in place, one backend's share only, so it costs what that
 * backend's tools cost (a full rebuild cost ~300 ms of event loop at 10,000 tools, for any
 * backend's refresh). It stays atomic for readers: `replaceTools` and its listeners run to their
 * end without awaiting, and every read (`resolve`, `sizes`, and a search once it has its query's
 * embedding) is synchronous too, so no reader runs while a refresh is halfway; each sees the
 * catalog wholly before or wholly after it.
 */
@Injectable()
export class RegistryService {
  private readonly logger = new Logger(RegistryService.name);
  private readonly byBackend = new Map<string, readonly CatalogTool[]>();
  private readonly byName = new Map<string, CatalogTool[]>();
  private readonly listeners: CatalogListener[] = [];

  /**
   * Replaces one backend's tools. A backend that goes down keeps its last known tools (architecture §4),
   * so callers only ever replace, never clear, on disconnect. Tools naming another backend are
   * ignored, and a name listed twice keeps its first entry, so resolution stays exact.
   */
  replaceTools(backend: string, tools: readonly CatalogTool[]): void {
    const own = ownTools(backend, tools);
    const previous = this.byBackend.get(backend);
    replaceBackendNames(this.byName, backend, previous ?? [], own);
    this.byBackend.set(backend, own);
    // Synchronously, before any reader runs: what listeners derive (the search index, trust
    // verdicts) is in place with the catalog.
    for (const listener of this.listeners) listener(backend, own);
    const diff = previous ? diffCatalog(previous, own) : undefined;
    const line = {
      msg: 'catalog updated',
      backend,
      tools: own.length,
      ...(diff && (diff.added.length > 0 || diff.removed.length > 0) ? { added: diff.added, removed: diff.removed } : {}),
      ...(diff && diff.definitionsChanged.length > 0 ? { changed: diff.definitionsChanged } : {}),
    };
    // The periodic re-list repeats an unchanged catalog every few minutes: that is no news.
    if (diff === undefined || catalogChanged(diff)) this.logger.log(line);
    else this.logger.debug(line);
    // What the read gate lets through may have changed: say which tool, and how, every time.
    for (const change of diff?.annotationsChanged ?? []) {
      this.logger.warn({ msg: 'tool annotations changed', backend, ...change });
    }
  }

  /**
   * Takes a backend out of the catalog (a reload removed it from the config): its tools leave
   * resolution and discovery, and listeners see it replaced by no tools, in the same turn.
   */
  removeBackend(backend: string): void {
    if (!this.byBackend.has(backend)) return;
    this.replaceTools(backend, []);
    this.byBackend.delete(backend);
  }

  /**
   * Calls `listener` with a backend's tools each time they are replaced, in the same turn, so a
   * module that derives state from the catalog (the search index) or judges tools (trust pins)
   * has done so before any reader sees them. A listener that subscribes after catalogs arrived
   * reads them with {@link backends} and {@link toolsOf}.
   */
  onCatalogReplaced(listener: CatalogListener): void {
    this.listeners.push(listener);
  }

  /** True once the backend has delivered a catalog at least once. */
  hasCatalog(backend: string): boolean {
    return this.byBackend.has(backend);
  }

  /** The backends that have delivered a catalog, in the order of their first delivery. */
  backends(): Iterable<string> {
    return this.byBackend.keys();
  }

  /** The backend's tools as last delivered (empty before its first catalog). */
  toolsOf(backend: string): readonly CatalogTool[] {
    return this.byBackend.get(backend) ?? [];
  }

  /** Every tool of the catalog, backend by backend in the order of their first delivery. */
  *allTools(): Generator<CatalogTool> {
    for (const tools of this.byBackend.values()) yield* tools;
  }

  /** Number of tools per backend. */
  sizes(): Map<string, number> {
    return new Map([...this.byBackend].map(([b, tools]) => [b, tools.length]));
  }

  /**
   * Exact resolution among the tools `visible` admits (default: all); without `server`, a name is
   * ambiguous only among the tools `callable` admits (see resolveTool).
   */
  resolve(name: string, server?: string, visible?: (tool: CatalogTool) => boolean, callable?: (tool: CatalogTool) => boolean): Resolution {
    return resolveTool(this.byName, name, server, visible, callable);
  }
}

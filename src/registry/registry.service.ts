import { Injectable, Logger } from '@nestjs/common';
import { buildToolIndex, searchTools, type ToolIndex } from './domain/ranking';
import { diffCatalog } from './domain/catalog-diff';
import { indexByName, resolveTool, type Resolution } from './domain/resolve';
import type { CatalogTool } from './registry.types';

/** One immutable view of the whole catalog; replaced, never mutated, so readers see one version. */
interface CatalogSnapshot {
  readonly byBackend: ReadonlyMap<string, readonly CatalogTool[]>;
  readonly byName: ReadonlyMap<string, readonly CatalogTool[]>;
  readonly index: ToolIndex;
}

/**
 * The catalog of every backend's tools. Backends push what they discover (so the registry never
 * depends on backends); a refresh swaps the snapshot atomically.
 */
@Injectable()
export class RegistryService {
  private readonly logger = new Logger(RegistryService.name);
  private snapshot: CatalogSnapshot = buildSnapshot(new Map());

  /**
   * Replaces one backend's tools. A backend that goes down keeps its last known tools (DESIGN §4),
   * so callers only ever replace, never clear, on disconnect.
   */
  replaceTools(backend: string, tools: readonly CatalogTool[]): void {
    const previous = this.snapshot.byBackend.get(backend);
    const byBackend = new Map(this.snapshot.byBackend);
    byBackend.set(backend, tools);
    this.snapshot = buildSnapshot(byBackend);
    const diff = previous ? diffCatalog(previous, tools) : undefined;
    this.logger.log({
      msg: 'catalog updated',
      backend,
      tools: tools.length,
      ...(diff && (diff.added.length > 0 || diff.removed.length > 0) ? { added: diff.added, removed: diff.removed } : {}),
    });
    // What the read gate lets through may have changed: say which tool, and how, every time.
    for (const change of diff?.annotationsChanged ?? []) {
      this.logger.warn({ msg: 'tool annotations changed', backend, ...change });
    }
  }

  /** True once the backend has delivered a catalog at least once. */
  hasCatalog(backend: string): boolean {
    return this.snapshot.byBackend.has(backend);
  }

  /** Number of tools per backend. */
  sizes(): Map<string, number> {
    return new Map([...this.snapshot.byBackend].map(([b, tools]) => [b, tools.length]));
  }

  /** Exact resolution among the tools `visible` admits (default: all). */
  resolve(name: string, server?: string, visible?: (tool: CatalogTool) => boolean): Resolution {
    return resolveTool(this.snapshot.byName, name, server, visible);
  }

  search(query: string, topK: number, backend?: string, visible?: (tool: CatalogTool) => boolean): { tool: CatalogTool; score: number }[] {
    return searchTools(this.snapshot.index, query, { topK, backend, visible });
  }
}

function buildSnapshot(byBackend: Map<string, readonly CatalogTool[]>): CatalogSnapshot {
  const all = [...byBackend.values()].flat();
  return { byBackend, byName: indexByName(all), index: buildToolIndex(all) };
}

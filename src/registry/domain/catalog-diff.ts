import type { CatalogTool, ToolAnnotations } from '../registry.types';

/** What changed in one backend's catalog between two refreshes, by tool name. */
export interface CatalogDiff {
  added: string[];
  removed: string[];
  /** Tools whose annotations changed, with the hints before and after. */
  annotationsChanged: { tool: string; before: ToolAnnotations; after: ToolAnnotations }[];
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * Compares a backend's old and new catalog. An annotation flip (say destructive → read-only)
 * changes what the read path lets through, so operators must be able to see it in the logs.
 */
export function diffCatalog(before: readonly CatalogTool[], after: readonly CatalogTool[]): CatalogDiff {
  const old = new Map(before.map((t) => [t.name, t]));
  const now = new Map(after.map((t) => [t.name, t]));
  const diff: CatalogDiff = { added: [], removed: [], annotationsChanged: [] };
  for (const [name, tool] of now) {
    const previous = old.get(name);
    if (!previous) diff.added.push(name);
    else if (HINTS.some((h) => previous.annotations?.[h] !== tool.annotations?.[h])) {
      diff.annotationsChanged.push({ tool: name, before: hintsOf(previous), after: hintsOf(tool) });
    }
  }
  for (const name of old.keys()) if (!now.has(name)) diff.removed.push(name);
  return diff;
}

function hintsOf(tool: CatalogTool): ToolAnnotations {
  const hints: ToolAnnotations = {};
  for (const h of HINTS) if (tool.annotations?.[h] !== undefined) hints[h] = tool.annotations[h];
  return hints;
}

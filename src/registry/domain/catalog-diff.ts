import type { CatalogTool, ToolAnnotations } from '../registry.types';

/** What changed in one backend's catalog between two refreshes, by tool name. */
export interface CatalogDiff {
  added: string[];
  removed: string[];
  /** Tools whose annotations changed, with the hints before and after. */
  annotationsChanged: { tool: string; before: ToolAnnotations; after: ToolAnnotations }[];
  /** Tools whose description, input schema or output schema changed. */
  definitionsChanged: string[];
}

/** True when the two catalogs differ in anything a refresh reports. */
export function catalogChanged(diff: CatalogDiff): boolean {
  return diff.added.length > 0 || diff.removed.length > 0 || diff.annotationsChanged.length > 0 || diff.definitionsChanged.length > 0;
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * Compares a backend's old and new catalog. An annotation flip (say destructive → read-only)
 * changes what the read path lets through, so operators must be able to see it in the logs.
 */
export function diffCatalog(before: readonly CatalogTool[], after: readonly CatalogTool[]): CatalogDiff {
  const old = new Map(before.map((t) => [t.name, t]));
  const now = new Map(after.map((t) => [t.name, t]));
  const diff: CatalogDiff = { added: [], removed: [], annotationsChanged: [], definitionsChanged: [] };
  for (const [name, tool] of now) {
    const previous = old.get(name);
    if (!previous) {
      diff.added.push(name);
      continue;
    }
    if (HINTS.some((h) => previous.annotations?.[h] !== tool.annotations?.[h])) {
      diff.annotationsChanged.push({ tool: name, before: hintsOf(previous), after: hintsOf(tool) });
    }
    if (definitionDiffers(previous, tool)) diff.definitionsChanged.push(name);
  }
  for (const name of old.keys()) if (!now.has(name)) diff.removed.push(name);
  return diff;
}

function definitionDiffers(a: CatalogTool, b: CatalogTool): boolean {
  return (
    a.description !== b.description ||
    JSON.stringify(a.inputSchema) !== JSON.stringify(b.inputSchema) ||
    JSON.stringify(a.outputSchema) !== JSON.stringify(b.outputSchema) ||
    a.annotations?.title !== b.annotations?.title
  );
}

function hintsOf(tool: CatalogTool): ToolAnnotations {
  const hints: ToolAnnotations = {};
  for (const h of HINTS) if (tool.annotations?.[h] !== undefined) hints[h] = tool.annotations[h];
  return hints;
}

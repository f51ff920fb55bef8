import type { CatalogTool } from '../registry.types';

/**
 * The outcome of resolving a caller's tool name against the catalog (architecture §4). `refused`:
 * several tools have the name and the caller can call none of them, so no server is named.
 */
export type Resolution = { kind: 'found'; tool: CatalogTool } | { kind: 'unknown' } | { kind: 'ambiguous'; servers: string[] } | { kind: 'refused' };

/**
 * Exact resolution: no case folding, trimming or aliasing, because a model that guesses a name
 * must be told so rather than silently routed somewhere (architecture §4).
 * `byName` maps a tool name to every catalog entry of that name, one per backend.
 *
 * `visible` admits the tools the caller may see at all; `callable`, among those, the tools it can
 * call now (not quarantined, let through by the gate of some published tool). Without `server`,
 * only callable tools count: a name-twin that is quarantined or refused by the gate on another
 * backend never makes a name ambiguous and is never named. A single visible tool that is not
 * callable is still found, so its call answers with why it is refused.
 */
export function resolveTool(
  byName: ReadonlyMap<string, readonly CatalogTool[]>,
  name: string,
  server: string | undefined,
  visible: (tool: CatalogTool) => boolean = () => true,
  callable: (tool: CatalogTool) => boolean = () => true,
): Resolution {
  // Tools the caller may not call are left out before anything is decided, so a denied tool
  // answers exactly like one that does not exist, and an ambiguity never names hidden servers.
  const candidates = (byName.get(name) ?? []).filter(visible);
  if (server !== undefined) {
    const tool = candidates.find((c) => c.backend === server);
    return tool ? { kind: 'found', tool } : { kind: 'unknown' };
  }
  const reachable = candidates.filter(callable);
  if (reachable.length === 1) return { kind: 'found', tool: reachable[0] };
  if (reachable.length > 1) return { kind: 'ambiguous', servers: reachable.map((c) => c.backend).sort() };
  if (candidates.length === 1) return { kind: 'found', tool: candidates[0] };
  if (candidates.length === 0) return { kind: 'unknown' };
  return { kind: 'refused' };
}

/** Groups a catalog by tool name. */
export function indexByName(tools: readonly CatalogTool[]): Map<string, CatalogTool[]> {
  const byName = new Map<string, CatalogTool[]>();
  for (const tool of tools) {
    const list = byName.get(tool.name);
    if (list) list.push(tool);
    else byName.set(tool.name, [tool]);
  }
  return byName;
}

/**
 * Replaces one backend's entries in a by-name map, in place: `before` is what the backend had,
 * `after` what it has now (one entry per name, as the registry keeps them). Costs what the
 * backend's tools cost, not what the catalog costs. A name no backend publishes any more is
 * dropped, so the map never grows with churn.
 */
export function replaceBackendNames(byName: Map<string, CatalogTool[]>, backend: string, before: readonly CatalogTool[], after: readonly CatalogTool[]): void {
  for (const tool of before) {
    const others = (byName.get(tool.name) ?? []).filter((t) => t.backend !== backend);
    if (others.length > 0) byName.set(tool.name, others);
    else byName.delete(tool.name);
  }
  for (const tool of after) {
    const list = byName.get(tool.name);
    if (list) list.push(tool);
    else byName.set(tool.name, [tool]);
  }
}

/** A backend's own tools, the first of each name: what the registry keeps of one refresh. */
export function ownTools(backend: string, tools: readonly CatalogTool[]): CatalogTool[] {
  const seen = new Set<string>();
  const own: CatalogTool[] = [];
  for (const tool of tools) {
    if (tool.backend !== backend || seen.has(tool.name)) continue;
    seen.add(tool.name);
    own.push(tool);
  }
  return own;
}

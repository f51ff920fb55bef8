import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { CatalogTool, ToolAnnotations } from '../../registry/registry.types';

const ANNOTATION_KEYS = ['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * A backend's `tools/list` answer as catalog entries. Only the annotation hints the spec defines
 * are kept (the gate reads them; anything else a backend adds is not ours to interpret). A name
 * listed twice (a backend whose pages overlap) keeps its first entry, so resolution stays exact.
 */
export function toCatalogTools(backend: string, tools: readonly Tool[]): CatalogTool[] {
  const seen = new Set<string>();
  const out: CatalogTool[] = [];
  for (const tool of tools) {
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    const annotations = pickAnnotations(tool.annotations);
    out.push({
      backend,
      name: tool.name,
      description: tool.description ?? '',
      inputSchema: tool.inputSchema as Record<string, unknown>,
      ...(annotations ? { annotations } : {}),
    });
  }
  return out;
}

function pickAnnotations(raw: Tool['annotations']): ToolAnnotations | undefined {
  if (!raw) return undefined;
  const picked: Record<string, unknown> = {};
  for (const key of ANNOTATION_KEYS) {
    if (raw[key] !== undefined) picked[key] = raw[key];
  }
  return picked as ToolAnnotations;
}

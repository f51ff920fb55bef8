import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { cleanSchemaTexts, cleanText, unsafeToolNameReason } from '../../registry/domain/sanitize';
import type { CatalogTool, ToolAnnotations } from '../../registry/registry.types';

/** Caps on what a backend may put in front of a model through find_tool (issue #6, edges). */
const DESCRIPTION_MAX_CHARS = 2000;
const SCHEMA_TEXT_MAX_CHARS = 1000;
const TITLE_MAX_CHARS = 200;

const ANNOTATION_KEYS = ['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * A backend's `tools/list` answer as catalog entries. Only the annotation hints the spec defines
 * are kept (the gate reads them; anything else a backend adds is not ours to interpret). A name
 * listed twice (a backend whose pages overlap) keeps its first entry, so resolution stays exact.
 * Descriptions and schema texts are cleaned of hidden characters (ANSI, controls, bidi, zero-width,
 * tags) and capped, since they reach a model; names are never altered (they must resolve exactly),
 * so a tool whose name holds such characters is left out and reported through `onSkip`.
 */
export function toCatalogTools(
  backend: string,
  tools: readonly Tool[],
  onSkip: (reason: string) => void = () => undefined,
): CatalogTool[] {
  const seen = new Set<string>();
  const out: CatalogTool[] = [];
  for (const tool of tools) {
    if (seen.has(tool.name)) continue;
    seen.add(tool.name);
    const unsafe = unsafeToolNameReason(tool.name);
    if (unsafe !== undefined) {
      onSkip(unsafe);
      continue;
    }
    const annotations = pickAnnotations(tool.annotations);
    out.push({
      backend,
      name: tool.name,
      description: cleanText(tool.description ?? '', DESCRIPTION_MAX_CHARS),
      inputSchema: cleanSchemaTexts(tool.inputSchema as Record<string, unknown>, SCHEMA_TEXT_MAX_CHARS),
      ...(tool.outputSchema ? { outputSchema: cleanSchemaTexts(tool.outputSchema as Record<string, unknown>, SCHEMA_TEXT_MAX_CHARS) } : {}),
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
  if (typeof picked.title === 'string') picked.title = cleanText(picked.title, TITLE_MAX_CHARS);
  return picked as ToolAnnotations;
}

import type { ToolAnnotations as SpecToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { cleanSchemaTexts, cleanText, unsafeSchemaReason, unsafeToolNameReason } from '../../registry/domain/sanitize';
import type { CatalogTool, ToolAnnotations } from '../../registry/registry.types';

/** Caps on what a backend may put in front of a model through find_tool: its texts are not the router's to trust. */
const DESCRIPTION_MAX_CHARS = 2000;
const SCHEMA_TEXT_MAX_CHARS = 1000;
const TITLE_MAX_CHARS = 200;

/**
 * One tool of a backend's `tools/list`, as parsed where it arrived (the SDK client's schema for a
 * 2025 backend, `ModernToolSchema` for a 2026-07-28 one): the fields the catalog reads.
 */
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: SpecToolAnnotations;
}

/**
 * A backend's `tools/list` answer as catalog entries. Only the annotation hints the spec defines
 * are kept (the gate reads them; anything else a backend adds is not ours to interpret). A name
 * listed twice (a backend whose pages overlap) keeps its first entry, so resolution stays exact.
 * Descriptions and every string of the schemas are cleaned of hidden characters (ANSI, controls,
 * bidi, zero-width, tags), descriptions also capped, since they reach a model; names are never
 * altered (they must resolve exactly, or be sent back exactly), so a tool whose name or a key of
 * whose schemas holds such characters is left out and reported through `onSkip` (with the tool's
 * name when that name is safe to log).
 */
export function toCatalogTools(
  backend: string,
  tools: readonly ListedTool[],
  onSkip: (reason: string, tool?: string) => void = () => undefined,
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
    const unsafeSchema = unsafeSchemaReason(tool.inputSchema) ?? unsafeSchemaReason(tool.outputSchema);
    if (unsafeSchema !== undefined) {
      onSkip(unsafeSchema, tool.name);
      continue;
    }
    const annotations = pickAnnotations(tool.annotations);
    out.push({
      backend,
      name: tool.name,
      description: cleanText(tool.description ?? '', DESCRIPTION_MAX_CHARS),
      inputSchema: cleanSchemaTexts(tool.inputSchema, SCHEMA_TEXT_MAX_CHARS),
      ...(tool.outputSchema ? { outputSchema: cleanSchemaTexts(tool.outputSchema, SCHEMA_TEXT_MAX_CHARS) } : {}),
      ...(annotations ? { annotations } : {}),
    });
  }
  return out;
}

/** The spec's hints, in the spec's order; the title cleaned like a description. */
function pickAnnotations(raw: SpecToolAnnotations | undefined): ToolAnnotations | undefined {
  if (!raw) return undefined;
  const { title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint } = raw;
  return {
    ...(title !== undefined ? { title: cleanText(title, TITLE_MAX_CHARS) } : {}),
    ...(readOnlyHint !== undefined ? { readOnlyHint } : {}),
    ...(destructiveHint !== undefined ? { destructiveHint } : {}),
    ...(idempotentHint !== undefined ? { idempotentHint } : {}),
    ...(openWorldHint !== undefined ? { openWorldHint } : {}),
  };
}

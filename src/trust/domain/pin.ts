import { createHash } from 'node:crypto';
import { canonicalJson } from '../../cursor/domain/canonical';
import type { CatalogTool } from '../../registry/registry.types';

/** What a pin covers: the tool as the catalog holds it (cleaned), without the backend's name. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/**
 * The definition a pin covers. The cleaned catalog entry, not the raw `tools/list` answer: what a
 * model reads and what the gate decides on is what must not change unseen, and hidden characters
 * the catalog strips cannot change a pin either.
 */
export function definitionOf(tool: CatalogTool): ToolDefinition {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations !== undefined ? { annotations: { ...tool.annotations } } : {}),
  };
}

/** SHA-256 (lower-case hex) of the definition's canonical JSON: key order never changes a pin. */
export function pinOf(definition: ToolDefinition): string {
  return createHash('sha256').update(canonicalJson(definition), 'utf8').digest('hex');
}

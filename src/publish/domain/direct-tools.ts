import { isJsonObject, type JsonObject } from '../../common/json-object';
import { MAX_CONFIRMATION_LENGTH } from '../../cursor/domain/confirmation-codec';
import { cleanText, MAX_SHOWN_DESCRIPTION_CHARS } from '../../registry/domain/sanitize';
import type { CatalogTool, ToolAnnotations } from '../../registry/registry.types';

/** How a tool published directly is called: through the read seam, or the write seam. */
export type DirectKind = 'read' | 'write';

/** A catalog tool the caller may call, and through which seam. */
export interface DirectCandidate {
  tool: CatalogTool;
  kind: DirectKind;
  /** Its published name (`publishedName`). */
  name: string;
}

/** A backend tool as `tools/list` publishes it (MCP spec, "Tool"). */
export interface DirectToolDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonObject;
  annotations: ToolAnnotations;
}

/**
 * The definition a candidate is published with: its description cleaned and cut as `find_tool`
 * shows it; its input schema as the catalog holds it (texts already cleaned), plus the
 * confirmation field for a write that may need one. A read is annotated read-only, whatever the
 * backend said (the gate decided it is; an operator's `policy.readOnly.allow` makes a tool read-only
 * that its backend never annotated); a write carries the backend's own annotations.
 *
 * No `outputSchema`: the call answers the router's envelope in `structuredContent`, not the
 * backend's, and a client checks `structuredContent` against an output schema.
 */
export function directDefinition(candidate: DirectCandidate): DirectToolDefinition {
  const { tool, kind, name } = candidate;
  const title = tool.annotations?.title === undefined ? undefined : cleanText(tool.annotations.title, MAX_SHOWN_DESCRIPTION_CHARS);
  const description = cleanText(tool.description, MAX_SHOWN_DESCRIPTION_CHARS);
  const titled = title === undefined ? {} : { title };
  if (kind === 'read') {
    return {
      name,
      ...titled,
      description,
      inputSchema: tool.inputSchema,
      annotations: { ...titled, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: tool.annotations?.openWorldHint ?? true },
    };
  }
  const field = confirmField(tool);
  const inputSchema = field === undefined ? tool.inputSchema : withConfirmField(tool.inputSchema, field);
  return { name, ...titled, description, inputSchema, annotations: { ...tool.annotations, ...titled } };
}

/**
 * The argument a write published directly takes its confirmation token in, or undefined when the
 * tool never needs one (annotated `destructiveHint: false`, architecture §11.2). `confirm`, unless
 * the tool has a parameter of that name: then `_confirm` (or as many `_` as it takes).
 */
export function confirmField(tool: Pick<CatalogTool, 'annotations' | 'inputSchema'>): string | undefined {
  if (tool.annotations?.destructiveHint === false) return undefined;
  const properties = isJsonObject(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
  let field = 'confirm';
  while (Object.hasOwn(properties, field)) field = `_${field}`;
  return field;
}

function withConfirmField(schema: JsonObject, field: string): JsonObject {
  const properties = isJsonObject(schema.properties) ? schema.properties : {};
  const confirm = {
    type: 'string',
    minLength: 1,
    maxLength: MAX_CONFIRMATION_LENGTH,
    description: 'Leave out at first. When the answer is `confirmation_required`, call again with the same arguments and this set to its `confirmation`.',
  };
  return { ...schema, properties: { ...properties, [field]: confirm } };
}

/** The caller's candidates split at the limit: the first `max` by published name are published, the rest are not. */
export function splitAtLimit(candidates: readonly DirectCandidate[], max: number): { published: DirectCandidate[]; beyond: DirectCandidate[] } {
  const sorted = [...candidates].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { published: sorted.slice(0, max), beyond: sorted.slice(max) };
}

/** How many tools past the limit the instructions name one by one; the rest are counted. */
export const MAX_NAMED_BEYOND = 100;

/**
 * The sentence the server's instructions gain when a caller may call more tools than are
 * published: which ones, as `backend:tool`, and how to reach them.
 */
export function beyondLimitInstructions(beyond: readonly Pick<CatalogTool, 'backend' | 'name'>[], max: number): string {
  if (beyond.length === 0) return '';
  const named = beyond.slice(0, MAX_NAMED_BEYOND).map((t) => `${t.backend}:${t.name}`);
  const rest = beyond.length - named.length;
  return (
    ` Only ${max} backend tools are published as tools of their own; these ${beyond.length} more are reached through ` +
    `find_tool and then invoke_read_tool (or invoke_tool when they change something), with their name and server: ` +
    `${named.join(', ')}${rest > 0 ? `, and ${rest} more` : ''}.`
  );
}

import { headerValue } from './modern-protocol';
import { isJsonObject } from './wire';

/**
 * Tool parameters a 2026-07-28 backend mirrors into request headers (spec 2026-07-28, Streamable
 * HTTP, "Custom Headers from Tool Parameters"). Pure.
 */

/** One `x-mcp-header` annotation of a tool: the `Mcp-Param-{name}` header and the argument path. */
export interface ParamHeader {
  header: string;
  path: string[];
}

/** RFC 9110 field-name token (`1*tchar`). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);

/**
 * The `x-mcp-header` annotations of a tool's `inputSchema`, or why the tool definition is invalid:
 * a client MUST leave such a tool out of its listing. Valid: a non-empty token, unique without
 * regard to case, on a string, integer or boolean property reached from the root through
 * `properties` keys only.
 */
export function paramHeadersOf(inputSchema: unknown): ParamHeader[] | { invalid: string } {
  const found: ParamHeader[] = [];
  const problems: string[] = [];
  const reachable = new Set<unknown>();
  const walk = (schema: unknown, path: string[]): void => {
    if (!isJsonObject(schema) || !isJsonObject(schema.properties)) return;
    for (const [key, property] of Object.entries(schema.properties)) {
      if (!isJsonObject(property)) continue;
      const at = [...path, key];
      if ('x-mcp-header' in property) {
        reachable.add(property);
        const name = property['x-mcp-header'];
        if (typeof name !== 'string' || !TOKEN.test(name)) problems.push(`x-mcp-header of ${at.join('.')} is not a header name`);
        else if (typeof property.type !== 'string' || !HEADER_TYPES.has(property.type))
          problems.push(`x-mcp-header on ${at.join('.')}, which is not a string, integer or boolean`);
        else if (found.some((h) => h.header.toLowerCase() === name.toLowerCase())) problems.push(`x-mcp-header ${name} is used twice`);
        else found.push({ header: name, path: at });
      }
      walk(property, at);
    }
  };
  walk(inputSchema, []);
  // An annotation anywhere else (under items, oneOf, $ref targets…) makes the definition invalid.
  const stray = (node: unknown, inProperties: boolean): boolean => {
    if (Array.isArray(node)) return node.some((n) => stray(n, false));
    if (!isJsonObject(node)) return false;
    if (!inProperties && 'x-mcp-header' in node && !reachable.has(node)) return true;
    return Object.entries(node).some(([key, child]) => (inProperties ? stray(child, false) : key !== 'x-mcp-header' && stray(child, key === 'properties')));
  };
  if (stray(inputSchema, false)) problems.push('x-mcp-header outside a chain of properties');
  return problems.length > 0 ? { invalid: problems[0] } : found;
}

/**
 * The `Mcp-Param-*` headers of one call: each annotated argument that is present, as its string
 * form (spec "Value Encoding"); a missing or null value has no header.
 */
export function paramHeaderValues(headers: readonly ParamHeader[], args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { header, path } of headers) {
    let value: unknown = args;
    for (const key of path) value = isJsonObject(value) ? value[key] : undefined;
    if (typeof value === 'string') out[`mcp-param-${header.toLowerCase()}`] = headerValue(value);
    else if (typeof value === 'boolean') out[`mcp-param-${header.toLowerCase()}`] = String(value);
    else if (typeof value === 'number' && Number.isSafeInteger(value)) out[`mcp-param-${header.toLowerCase()}`] = String(value);
  }
  return out;
}

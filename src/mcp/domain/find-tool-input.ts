import type { FindToolQuery } from '../../discovery/find-tool.service';
import { characters, MAX_SERVER_CHARS } from '../../batch/domain/read-call';

/** `find_tool`'s bounds: the published schema and this check both read them (one source). */
export const FIND_TOOL_LIMITS = { maxQueryChars: 500, minTopK: 1, maxTopK: 10, defaultTopK: 5, maxServerChars: MAX_SERVER_CHARS } as const;

const FIELDS = new Set(['query', 'top_k', 'server', 'include_schema']);

/** Validates `find_tool` arguments against its published schema; messages name the rule, never the value. */
export function checkFindToolInput(args: Record<string, unknown>): { ok: true; query: FindToolQuery } | { ok: false; message: string } {
  const { maxQueryChars, minTopK, maxTopK, defaultTopK, maxServerChars } = FIND_TOOL_LIMITS;
  if (Object.keys(args).some((k) => !FIELDS.has(k))) {
    return { ok: false, message: `unknown field(s); allowed: ${[...FIELDS].join(', ')}` };
  }
  const { query, top_k: topK = defaultTopK, server, include_schema: includeSchema = false } = args;
  if (typeof query !== 'string' || query.length < 1 || characters(query) > maxQueryChars) {
    return { ok: false, message: `\`query\` must be a string of 1..${maxQueryChars} characters: what you want to do, in plain words` };
  }
  if (typeof topK !== 'number' || !Number.isInteger(topK) || topK < minTopK || topK > maxTopK) {
    return { ok: false, message: `\`top_k\` must be an integer from ${minTopK} to ${maxTopK}` };
  }
  if (server !== undefined && (typeof server !== 'string' || server.length < 1 || characters(server) > maxServerChars)) {
    return { ok: false, message: `\`server\` must be a backend name of 1..${maxServerChars} characters` };
  }
  if (typeof includeSchema !== 'boolean') return { ok: false, message: '`include_schema` must be a boolean' };
  return { ok: true, query: { query, topK, server, includeSchema } };
}

import type { FindToolQuery } from '../../batch/find-tool.service';

const FIELDS = new Set(['query', 'top_k', 'server', 'include_schema']);

/** Validates `find_tool` arguments; messages name the rule, never the value. */
export function checkFindToolInput(args: Record<string, unknown>): { ok: true; query: FindToolQuery } | { ok: false; message: string } {
  if (Object.keys(args).some((k) => !FIELDS.has(k))) {
    return { ok: false, message: `unknown field(s); allowed: ${[...FIELDS].join(', ')}` };
  }
  const { query, top_k: topK = 5, server, include_schema: includeSchema = false } = args;
  if (typeof query !== 'string' || query.length > 500) return { ok: false, message: '`query` must be a string of at most 500 characters' };
  if (typeof topK !== 'number' || !Number.isInteger(topK) || topK < 1 || topK > 10) {
    return { ok: false, message: '`top_k` must be an integer from 1 to 10' };
  }
  if (server !== undefined && (typeof server !== 'string' || server.length > 63)) {
    return { ok: false, message: '`server` must be a backend name' };
  }
  if (typeof includeSchema !== 'boolean') return { ok: false, message: '`include_schema` must be a boolean' };
  return { ok: true, query: { query, topK, server, includeSchema } };
}

import { MAX_TOOL_PAGES } from './limits';

/** One page of `tools/list` as any channel reads it. */
export interface ToolPage<T> {
  tools: T[];
  nextCursor?: string;
}

/**
 * Every page of `tools/list` (spec "Pagination"), fetched one after the other with `listPage`.
 * A backend that repeats a cursor or pages past `MAX_TOOL_PAGES` is broken: the listing fails.
 */
export async function collectToolPages<T>(listPage: (cursor: string | undefined) => Promise<ToolPage<T>>): Promise<T[]> {
  const tools: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const result = await listPage(cursor);
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
    if (seen.has(cursor)) throw new Error('backend repeated a tools/list cursor');
    seen.add(cursor);
  }
  throw new Error(`backend listed more than ${MAX_TOOL_PAGES} pages of tools`);
}

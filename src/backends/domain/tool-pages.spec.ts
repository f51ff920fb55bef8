import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { MAX_TOOL_PAGES } from './limits';
import { collectToolPages, type ToolPage } from './tool-pages';

const tool = (name: string): Tool => ({ name, inputSchema: { type: 'object' } });

test('every page is collected in order, each asked with the cursor the last one gave', async () => {
  const pages: Record<string, ToolPage<Tool>> = {
    start: { tools: [tool('a')], nextCursor: 'p2' },
    p2: { tools: [tool('b'), tool('c')], nextCursor: 'p3' },
    p3: { tools: [tool('d')] },
  };
  const asked: (string | undefined)[] = [];
  const tools = await collectToolPages((cursor) => (asked.push(cursor), Promise.resolve(pages[cursor ?? 'start'])));
  assert.deepEqual(
    tools.map((t) => t.name),
    ['a', 'b', 'c', 'd'],
  );
  assert.deepEqual(asked, [undefined, 'p2', 'p3']);
});

test('a repeated cursor fails the listing instead of looping', async () => {
  await assert.rejects(
    collectToolPages(() => Promise.resolve({ tools: [tool('a')], nextCursor: 'same' })),
    /repeated a tools\/list cursor/,
  );
});

test('a backend that pages past the cap fails the listing', async () => {
  let n = 0;
  await assert.rejects(
    collectToolPages(() => Promise.resolve({ tools: [], nextCursor: String(++n) })),
    new RegExp(`more than ${MAX_TOOL_PAGES} pages`),
  );
  assert.equal(n, MAX_TOOL_PAGES);
});

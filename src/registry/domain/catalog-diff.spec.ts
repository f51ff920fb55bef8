import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CatalogTool } from '../registry.types';
import { diffCatalog } from './catalog-diff';

const tool = (name: string, annotations?: CatalogTool['annotations']): CatalogTool => ({ backend: 'b', name, description: '', inputSchema: {}, annotations });

test('reports added, removed and annotation flips by name', () => {
  const diff = diffCatalog(
    [tool('purge', { destructiveHint: true }), tool('gone'), tool('same', { readOnlyHint: true, title: 'x' })],
    [tool('purge', { readOnlyHint: true }), tool('new'), tool('same', { readOnlyHint: true, title: 'y' })],
  );
  assert.deepEqual(diff, {
    added: ['new'],
    removed: ['gone'],
    annotationsChanged: [{ tool: 'purge', before: { destructiveHint: true }, after: { readOnlyHint: true } }],
  });
});

test('an unchanged catalog has no differences', () => {
  const tools = [tool('a', { readOnlyHint: true })];
  assert.deepEqual(diffCatalog(tools, tools), { added: [], removed: [], annotationsChanged: [] });
});

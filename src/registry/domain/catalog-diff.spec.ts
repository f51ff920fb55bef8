import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CatalogTool } from '../registry.types';
import { catalogChanged, diffCatalog } from './catalog-diff';

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
    definitionsChanged: ['same'],
  });
});

test('an unchanged catalog has no differences', () => {
  const tools = [tool('a', { readOnlyHint: true })];
  const again = tools.map((t) => ({ ...t, inputSchema: { ...t.inputSchema } }));
  assert.deepEqual(diffCatalog(tools, again), { added: [], removed: [], annotationsChanged: [], definitionsChanged: [] });
  assert.equal(catalogChanged(diffCatalog(tools, again)), false);
});

test('a description or schema rewritten under the same name is a change', () => {
  const before = [tool('a'), tool('b')];
  const after = [
    { ...tool('a'), description: 'now different' },
    { ...tool('b'), inputSchema: { type: 'object' } },
  ];
  assert.deepEqual(diffCatalog(before, after).definitionsChanged, ['a', 'b']);
  assert.equal(catalogChanged(diffCatalog(before, after)), true);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Associations } from '../../learning/domain/associations';
import type { CatalogTool } from '../../registry/registry.types';
import { searchTools } from './ranking';
import { buildToolIndex } from './tool-index';

const tool = (backend: string, name: string, description: string): CatalogTool => ({ backend, name, description, inputSchema: { type: 'object' } });

test('a tool learned for words it does not hold is found by them, and only within its backend filter', () => {
  const index = buildToolIndex([tool('util', 'get-sum', 'Returns the sum of two numbers'), tool('util', 'echo', 'Echoes the blorp back')]);
  const a = new Associations({ minPrincipals: 3, halfLifeMs: 1e9, maxAssociations: 100 });
  a.observe(['p1', 'p2', 'p3'].map((principal) => ({ word: 'quuxifi', tool: 'util\u0000get-sum', definition: 'd', principal, atMs: 0 })));
  const learned = a.signal(0, 1);
  const names = (backend?: string) => searchTools(index, 'quuxify', { topK: 5, learned, backend }).map((h) => h.tool.name);
  assert.deepEqual(searchTools(index, 'quuxify', { topK: 5 }), []);
  assert.deepEqual(names(), ['get-sum']);
  assert.deepEqual(names('other'), []);
});

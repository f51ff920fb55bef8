import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CatalogTool } from '../../registry/registry.types';
import { searchTools, type SearchToolsOptions } from './ranking';
import { buildToolIndex, replaceBackendTools } from './tool-index';
import { SearchCache } from './search-cache';

function tool(backend: string, name: string, description: string): CatalogTool {
  return { backend, name, description, inputSchema: { type: 'object', properties: { id: { type: 'string' } } } };
}

/** Look-alike tools over three backends: many equal scores, so tie-breaking is exercised. */
function lookAlikes(): CatalogTool[] {
  const tools: CatalogTool[] = [];
  for (const backend of ['alpha', 'beta', 'gamma']) {
    for (let i = 0; i < 40; i++) tools.push(tool(backend, `get_bucket_${i}`, `Describe bucket number ${i} of the store`));
    tools.push(tool(backend, 'describe_bucket', 'Describe a storage bucket'));
  }
  return tools;
}

const key = (hits: { tool: CatalogTool; score: number }[]): string[] => hits.map((h) => `${h.tool.backend}:${h.tool.name}:${h.score}`);

test('answers exactly what searchTools answers, for every caller filter, backend and top k', () => {
  const index = buildToolIndex(lookAlikes());
  const cache = new SearchCache({ depth: 8 });
  const filters: (SearchToolsOptions['visible'] | undefined)[] = [undefined, (t) => t.backend === 'gamma', (t) => t.name.endsWith('7'), () => false];
  // Twice over, so the second pass is served from the cache.
  for (let pass = 0; pass < 2; pass++) {
    for (const query of ['describe bucket', 'bucket 7', 'store', 'nothing-matches-this', '', 'Describe the buckets']) {
      for (const visible of filters) {
        for (const backend of [undefined, 'beta']) {
          for (const topK of [1, 5, 8, 10]) {
            const opts = { topK, backend, visible };
            assert.deepEqual(key(cache.search(index, query, opts)), key(searchTools(index, query, opts)), JSON.stringify({ query, backend, topK }));
          }
        }
      }
    }
  }
});

test('one caller never sees what another may not: the filter runs on every search, cached or not', () => {
  const index = buildToolIndex(lookAlikes());
  const cache = new SearchCache();
  const everything = cache.search(index, 'describe bucket', { topK: 5 });
  assert.ok(everything.some((h) => h.tool.backend === 'alpha'));
  const onlyBeta = cache.search(index, 'describe bucket', { topK: 5, visible: (t) => t.backend === 'beta' });
  assert.ok(onlyBeta.length > 0);
  assert.deepEqual(
    onlyBeta.filter((h) => h.tool.backend !== 'beta'),
    [],
  );
  assert.deepEqual(cache.search(index, 'describe bucket', { topK: 5, visible: () => false }), []);
});

test('a change to the index is seen at once: a replaced backend is never answered from the cache', () => {
  const index = buildToolIndex(lookAlikes());
  const cache = new SearchCache();
  assert.equal(cache.search(index, 'describe bucket', { topK: 1 })[0].tool.name, 'describe_bucket');
  replaceBackendTools(index, 'alpha', [tool('alpha', 'describe_bucket_policy', 'Describe a bucket policy and its storage bucket')]);
  assert.deepEqual(key(cache.search(index, 'describe bucket', { topK: 5 })), key(searchTools(index, 'describe bucket', { topK: 5 })));
  assert.ok(cache.search(index, 'policy', { topK: 5 }).some((h) => h.tool.name === 'describe_bucket_policy'));
});

test('holds at most `entries` rankings, dropping the least recently used', () => {
  const index = buildToolIndex(lookAlikes());
  const cache = new SearchCache({ entries: 2 });
  cache.search(index, 'bucket alpha', { topK: 5 });
  cache.search(index, 'bucket beta', { topK: 5 });
  cache.search(index, 'bucket alpha', { topK: 5 });
  cache.search(index, 'bucket gamma', { topK: 5 });
  assert.equal(cache.size, 2);
  // Equal queries after normalization share one ranking.
  cache.search(index, 'Buckets gamma', { topK: 5 });
  assert.equal(cache.size, 2);
});

test('rankings with and without what was learned are kept side by side, and a new version of it clears the first', () => {
  const index = buildToolIndex(lookAlikes());
  const cache = new SearchCache();
  const learned = (version: number): SearchToolsOptions['learned'] => ({ version, byWord: new Map(), inUse: new Map(), size: 0 });
  cache.search(index, 'describe bucket', { topK: 5, learned: learned(1) });
  cache.search(index, 'describe bucket', { topK: 5 });
  cache.search(index, 'describe bucket', { topK: 5, learned: learned(1) });
  // find_tool asks for both on every request: neither empties the cache of the other.
  assert.equal(cache.size, 2);
  cache.search(index, 'describe bucket', { topK: 5, learned: learned(2) });
  assert.equal(cache.size, 2, 'the ranking made with version 1 is gone, the one without learning kept');
  cache.search(index, 'storage bucket', { topK: 5, learned: learned(2) });
  assert.equal(cache.size, 3);
});

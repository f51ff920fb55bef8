import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { before, test } from 'node:test';
import { searchTools } from '../src/discovery/domain/ranking';
import { loadLexicon } from '../src/discovery/lexicon';
import { buildToolIndex, type ToolIndex } from '../src/discovery/domain/tool-index';
import type { CatalogTool } from '../src/registry/registry.types';
import { fetchDemoCatalogs } from './support/catalogs';

interface ToolRef {
  server: string;
  name: string;
}

interface LabelledQuery {
  query: string;
  expected: ToolRef[];
}

interface QuerySet {
  queries: LabelledQuery[];
}

const TOP_K = 5;
const MIN_RECALL_AT_5 = 0.9;

/**
 * tsc does not copy JSON into the build, so the query set is read from the source tree: the
 * nearest ancestor of the compiled file that holds `test/find-tool-queries.json` (works for
 * `dist/` and for any other `--outDir` under the repository).
 */
function loadQueries(): LabelledQuery[] {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const file = join(dir, 'test', 'find-tool-queries.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as QuerySet).queries;
    if (dirname(dir) === dir) throw new Error(`test/find-tool-queries.json not found above ${__dirname}`);
  }
}

const key = (server: string, name: string): string => `${server}:${name}`;

let catalog: CatalogTool[] = [];
let index: ToolIndex;
const queries = loadQueries();

before(
  async () => {
    catalog = await fetchDemoCatalogs();
    index = buildToolIndex(catalog, { lexicon: loadLexicon() });
  },
  { timeout: 300_000 },
);

test('the labelled queries name only tools the demo backends really publish', () => {
  const published = new Set(catalog.map((t) => key(t.backend, t.name)));
  for (const backend of ['files', 'memory', 'everything']) {
    assert.ok(
      catalog.some((t) => t.backend === backend),
      `no tools from demo backend ${backend}`,
    );
  }
  const unknown = queries.flatMap((q) => q.expected.map((e) => key(e.server, e.name))).filter((k) => !published.has(k));
  assert.deepEqual(unknown, []);
  assert.ok(queries.length >= 45, `only ${queries.length} labelled queries`);
});

test('find_tool ranking finds the expected tool in the top 5 for at least 90% of queries', { timeout: 300_000 }, () => {
  let found = 0;
  let reciprocalRanks = 0;
  const misses: string[] = [];
  for (const { query, expected } of queries) {
    const hits = searchTools(index, query, { topK: TOP_K });
    const keys = hits.map((h) => key(h.tool.backend, h.tool.name));
    assert.ok(hits.length <= TOP_K, `"${query}" answered ${hits.length} hits`);
    assert.equal(new Set(keys).size, keys.length, `"${query}" answered a tool twice: ${keys.join(', ')}`);

    const wanted = new Set(expected.map((e) => key(e.server, e.name)));
    const rank = keys.findIndex((k) => wanted.has(k));
    if (rank >= 0) {
      found += 1;
      reciprocalRanks += 1 / (rank + 1);
    } else {
      misses.push(`  "${query}" wanted ${[...wanted].join(' | ')}, got ${keys.join(', ') || '(nothing)'}`);
    }
  }
  const recall = found / queries.length;
  const mrr = reciprocalRanks / queries.length;
  console.log(`find_tool recall@5=${recall.toFixed(2)} MRR=${mrr.toFixed(2)} over ${queries.length} queries`);
  if (misses.length > 0) console.log(`find_tool misses:\n${misses.join('\n')}`);
  assert.ok(recall >= MIN_RECALL_AT_5, `recall@5 ${recall.toFixed(2)} is below ${MIN_RECALL_AT_5}`);
});

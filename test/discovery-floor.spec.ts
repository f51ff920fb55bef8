import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { searchTools } from '../src/discovery/domain/ranking';
import { loadLexicon } from '../src/discovery/lexicon';
import { buildToolIndex } from '../src/discovery/domain/tool-index';
import { loadDiscoverySet, scorePart, toolKey, type DiscoverySetName } from './support/discovery-sets';

/**
 * Floors on the test parts of the public tool-retrieval sets (`npm run eval:discovery`,
 * BENCHMARKS.md "Discovery"): a few points under what the ranking reaches, so a later change
 * cannot silently undo it. Raise a floor with the figures that justify it; never lower one to
 * make a change pass without saying so in BENCHMARKS.md.
 */
const FLOORS: Record<DiscoverySetName, { recallAt5: number; mrrAt10: number }> = {
  // 46 test queries: one query is 0.022 of recall, so the floor sits two queries under.
  livemcpbench: { recallAt5: 0.6, mrrAt10: 0.5 },
  'bfcl-live': { recallAt5: 0.87, mrrAt10: 0.73 },
  metatool: { recallAt5: 0.65, mrrAt10: 0.52 },
};

// The ranking as the router runs it: with the offline lexicon.
const lexicon = loadLexicon();

for (const name of Object.keys(FLOORS) as DiscoverySetName[]) {
  test(`find_tool ranking holds its floor on the ${name} test part`, { timeout: 300_000 }, () => {
    const set = loadDiscoverySet(name);
    const index = buildToolIndex(set.tools, { lexicon });
    const score = scorePart(
      set.queries.test,
      (query, topK) => searchTools(index, query, { topK }).map((h) => toolKey(h.tool.backend, h.tool.name)),
      () => performance.now(),
    );
    assert.ok(score.queries > 40, `only ${score.queries} test queries in ${name}`);
    const floor = FLOORS[name];
    const figures = `recall@5 ${score.recallAt5.toFixed(3)}, MRR@10 ${score.mrrAt10.toFixed(3)} over ${score.queries} queries`;
    assert.ok(score.recallAt5 >= floor.recallAt5, `${name}: ${figures}; floor recall@5 ${floor.recallAt5}`);
    assert.ok(score.mrrAt10 >= floor.mrrAt10, `${name}: ${figures}; floor MRR@10 ${floor.mrrAt10}`);
  });
}

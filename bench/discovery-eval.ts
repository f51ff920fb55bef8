import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { searchTools } from '../src/discovery/domain/ranking';
import { buildToolIndex } from '../src/discovery/domain/tool-index';
import { loadLexicon } from '../src/discovery/lexicon';
import { DISCOVERY_SETS, loadDiscoverySet, scorePart, toolKey, type DiscoverySetName, type Part, type PartScore } from '../test/support/discovery-sets';

/**
 * `npm run eval:discovery`: how well `find_tool` ranks on public tool-retrieval sets
 * (`bench/discovery/`), in process, per set and part. Report the test part; look only at the
 * tune part while changing the ranking (`--part tune --misses 20` lists what it missed).
 */
const { values } = parseArgs({
  options: {
    part: { type: 'string', default: 'both' },
    set: { type: 'string', multiple: true },
    misses: { type: 'string', default: '0' },
    lexicon: { type: 'string', default: 'on' },
  },
});
const parts: Part[] = values.part === 'both' ? ['tune', 'test'] : [values.part as Part];
if (!parts.every((p) => p === 'tune' || p === 'test')) throw new Error('--part is tune, test or both');
const sets = (values.set ?? [...DISCOVERY_SETS]) as DiscoverySetName[];
const showMisses = Number(values.misses);
// Without the offline lexicon the ranking is lexical only, as in a router whose lexicon is missing.
const lexicon = values.lexicon === 'off' ? undefined : loadLexicon();

const fmt = (x: number): string => x.toFixed(3);
console.log('| set | part | tools | queries | recall@1 | recall@5 | MRR@10 | p50 ms | p99 ms |');
console.log('|---|---|---|---|---|---|---|---|---|');
const missed: { set: string; score: PartScore }[] = [];
for (const name of sets) {
  const set = loadDiscoverySet(name);
  const index = buildToolIndex(set.tools, { lexicon });
  const rank = (query: string, topK: number): string[] => searchTools(index, query, { topK }).map((h) => toolKey(h.tool.backend, h.tool.name));
  for (const part of parts) {
    const score = scorePart(set.queries[part], rank, () => performance.now());
    console.log(
      `| ${name} | ${part} | ${set.tools.length} | ${score.queries} | ${fmt(score.recallAt1)} | ${fmt(score.recallAt5)} | ${fmt(score.mrrAt10)} | ${score.p50Ms.toFixed(2)} | ${score.p99Ms.toFixed(2)} |`,
    );
    if (part === 'tune') missed.push({ set: name, score });
  }
}
if (showMisses > 0) {
  for (const { set, score } of missed) {
    console.log(`\n${set} (tune part): ${score.misses.length} misses in the top 10; the first ${showMisses}:`);
    for (const m of score.misses.slice(0, showMisses)) {
      console.log(
        `  "${m.query.slice(0, 160)}"\n     want ${m.want.map((k) => k.replace('\u0000', ':')).join(' | ')}\n     got  ${m.got.map((k) => k.replace('\u0000', ':')).join(', ')}`,
      );
    }
  }
}

import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { searchTools } from '../src/discovery/domain/ranking';
import { buildToolIndex } from '../src/discovery/domain/tool-index';
import { loadLexicon } from '../src/discovery/lexicon';
import type { LearnedSignal } from '../src/learning/domain/associations';
import { replayAsTraffic, splitTune } from './learning-replay';
import { DISCOVERY_SETS, loadDiscoverySet, scorePart, toolKey, type DiscoverySetName, type Part, type PartScore } from '../test/support/discovery-sets';

/**
 * `npm run eval:discovery`: how well `find_tool` ranks on public tool-retrieval sets
 * (`bench/discovery/`), in process, per set and part. Report the test part; look only at the
 * tune part while changing the ranking (`--part tune --misses 20` lists what it missed).
 *
 * `--learn`: the tune part is first replayed as traffic (`learning-replay.ts`), `--per-tool` K
 * queries per tool (a number or `all`, default 10) by `--principals` N, then the test part is
 * ranked with what was learned. With `--part tune`, half of the tune part is replayed and the other
 * half ranked, for choosing learning's constants without looking at the test part.
 */
const { values } = parseArgs({
  options: {
    part: { type: 'string', default: 'both' },
    set: { type: 'string', multiple: true },
    misses: { type: 'string', default: '0' },
    lexicon: { type: 'string', default: 'on' },
    learn: { type: 'boolean', default: false },
    'per-tool': { type: 'string', default: '10' },
    principals: { type: 'string', default: '10' },
    'min-principals': { type: 'string', default: '3' },
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
  let learned: LearnedSignal | undefined;
  const rank = (query: string, topK: number): string[] => searchTools(index, query, { topK, learned }).map((h) => toolKey(h.tool.backend, h.tool.name));
  for (const part of parts) {
    let queries = set.queries[part];
    if (values.learn) {
      const split = part === 'tune' ? splitTune(queries) : { traffic: set.queries.tune, ranked: queries };
      const perTool = values['per-tool'] === 'all' ? Infinity : Number(values['per-tool']);
      learned = replayAsTraffic(split.traffic, { perTool, principals: Number(values.principals), minPrincipals: Number(values['min-principals']) });
      queries = split.ranked;
    }
    const score = scorePart(queries, rank, () => performance.now());
    console.log(
      `| ${name} | ${part}${values.learn ? ` (learned: ${learned?.size ?? 0})` : ''} | ${set.tools.length} | ${score.queries} | ${fmt(score.recallAt1)} | ${fmt(score.recallAt5)} | ${fmt(score.mrrAt10)} | ${score.p50Ms.toFixed(2)} | ${score.p99Ms.toFixed(2)} |`,
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

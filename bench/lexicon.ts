/**
 * `npm run bench:lexicon`: what the offline lexicon (README, "Offline lexicon") costs. Its
 * budget: at most 80 MB RSS and 1 s added to boot. Each load runs in a fresh process (RSS is
 * only meaningful there), the median of BENCH_RUNS (default 5) is reported; then the lookups the
 * ranking makes per query word, uncached, over a catalog vocabulary.
 *
 * Environment (optional): BENCH_RUNS, BENCH_VOCABULARY (words of the large vocabulary, default
 * 20000).
 */
import { execFileSync } from 'node:child_process';
import { loadLexicon } from '../src/discovery/lexicon';
import { nearestInVocabulary, similarity, vocabularyVectors, wordnetRelated } from '../src/discovery/domain/semantic';
import { syntheticTools } from '../test/fixtures/synthetic-tools';
import { median, percentile } from './harness';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const LARGE_VOCABULARY = Number(process.env.BENCH_VOCABULARY ?? 20_000);
const MB = 1024 * 1024;

interface LoadFigures {
  loadMs: number;
  rssDeltaMb: number;
  heapDeltaMb: number;
  externalDeltaMb: number;
}

/** In the child: RSS before and after loading, after a full GC each time. */
function measureLoad(): LoadFigures {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with node --expose-gc');
  gc();
  const before = process.memoryUsage();
  const started = process.hrtime.bigint();
  const lexicon = loadLexicon();
  const loadMs = Number(process.hrtime.bigint() - started) / 1e6;
  gc();
  const after = process.memoryUsage();
  if (lexicon.words.length === 0) throw new Error('empty lexicon');
  return {
    loadMs,
    rssDeltaMb: (after.rss - before.rss) / MB,
    heapDeltaMb: (after.heapUsed - before.heapUsed) / MB,
    externalDeltaMb: (after.external - before.external) / MB, // `external` includes array buffers
  };
}

function timed(fn: () => unknown): number {
  const started = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function lookups(): void {
  const lexicon = loadLexicon();
  // The words of each tool's name and description, split simply: this measures the lexicon, not
  // the ranking's tokenizer.
  const catalogWords = new Set(syntheticTools(10_000).flatMap((t) => `${t.name} ${t.description}`.toLowerCase().split(/[^a-z0-9]+/)));
  // A real 10,000-tool catalog says far more than the synthetic one: also a vocabulary of the
  // lexicon's words ranked 1,000 and below (common function words are not catalog vocabulary).
  const largeWords = lexicon.words.slice(1000, 1000 + LARGE_VOCABULARY);
  const queryWords = lexicon.words.slice(200, 2200).filter((_, i) => i % 4 === 0); // 500 first-seen words
  for (const [name, words] of [
    ['synthetic 10,000-tool catalog', catalogWords],
    [`${largeWords.length} words`, largeWords],
  ] as const) {
    let matrix = vocabularyVectors(lexicon, words);
    const buildMs = timed(() => (matrix = vocabularyVectors(lexicon, words)));
    nearestInVocabulary(lexicon, 'warm', matrix, 10, 0.5);
    const nearest = queryWords.map((w) => timed(() => nearestInVocabulary(lexicon, w, matrix, 10, 0.5)));
    console.log(
      `| nearestInVocabulary, ${name} (${matrix.words.length} words with vectors; matrix ${buildMs.toFixed(1)} ms, ${(matrix.rows.byteLength / MB).toFixed(1)} MB) | ${median(nearest).toFixed(3)} | ${percentile(nearest, 99).toFixed(3)} |`,
    );
  }
  const related = queryWords.map((w) => timed(() => wordnetRelated(lexicon, w)));
  console.log(`| wordnetRelated | ${median(related).toFixed(3)} | ${percentile(related, 99).toFixed(3)} |`);
  const cosine = queryWords.map((w, i) => timed(() => similarity(lexicon, w, queryWords[(i + 1) % queryWords.length])));
  console.log(`| similarity | ${median(cosine).toFixed(4)} | ${percentile(cosine, 99).toFixed(4)} |`);
}

function main(): void {
  if (process.argv[2] === '--child') {
    process.stdout.write(JSON.stringify(measureLoad()));
    return;
  }
  const runs: LoadFigures[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    runs.push(JSON.parse(execFileSync(process.execPath, ['--expose-gc', __filename, '--child'], { encoding: 'utf8' })) as LoadFigures);
  }
  const pick = (f: (r: LoadFigures) => number) => median(runs.map(f));
  console.log(`Offline lexicon, median of ${RUNS} fresh processes (budget: +80 MB RSS, +1 s boot)\n`);
  console.log('| load ms | RSS delta MB | heap delta MB | external (typed arrays) MB |');
  console.log('|---|---|---|---|');
  console.log(
    `| ${pick((r) => r.loadMs).toFixed(0)} | ${pick((r) => r.rssDeltaMb).toFixed(1)} | ${pick((r) => r.heapDeltaMb).toFixed(1)} | ${pick((r) => r.externalDeltaMb).toFixed(1)} |`,
  );
  console.log(`\nLookups, uncached, ms per query word\n\n| lookup | p50 | p99 |\n|---|---|---|`);
  lookups();
}

main();

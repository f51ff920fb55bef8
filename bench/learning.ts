import { performance } from 'node:perf_hooks';
import { toCatalogTools } from '../src/backends/domain/catalog';
import { searchTools } from '../src/discovery/domain/ranking';
import { queryTerms } from '../src/discovery/domain/terms';
import { buildToolIndex } from '../src/discovery/domain/tool-index';
import { loadLexicon } from '../src/discovery/lexicon';
import { Associations, type Observation } from '../src/learning/domain/associations';
import { learnedWords } from '../src/learning/domain/learned-words';
import { syntheticTools } from '../test/fixtures/synthetic-tools';
import { median, percentile } from './harness';

/**
 * `npm run bench:learning`: what learning from use costs find_tool at 10,000 tools, side by side
 * in one run: the same queries ranked without and with a full store (the default bound of 100,000
 * word-tool associations, each made by three principals), alternating; the time to build the
 * ranking's signal from the whole store and to work out one pair's words again; the store's heap.
 */
const N = 10_000;
const ASSOCIATIONS = 100_000;
const catalog = toCatalogTools('synthetic', syntheticTools(N));
const index = buildToolIndex(catalog, { lexicon: loadLexicon() });

// Traffic: each tool's description words, and made-up words, paired with it by three principals.
const words = [...new Set(catalog.flatMap((t) => learnedWords(queryTerms(t.description))))];
const gcNow = (globalThis as { gc?: () => void }).gc;
gcNow?.();
const heapBefore = process.memoryUsage().heapUsed;
const associations = new Associations({ minPrincipals: 3, halfLifeMs: 7 * 86_400_000, maxAssociations: ASSOCIATIONS });
for (let i = 0; i < ASSOCIATIONS; i += 1) {
  const tool = catalog[(i * 7919) % catalog.length];
  const word = i % 2 === 0 ? words[i % words.length] : `jargon${i % 5000}`;
  const observations: Observation[] = ['p1', 'p2', 'p3'].map((principal) => ({
    word,
    tool: `${tool.backend}\u0000${tool.name}`,
    definition: 'd',
    principal,
    atMs: i,
  }));
  associations.observe(observations);
}
gcNow?.();
const heapMiB = (process.memoryUsage().heapUsed - heapBefore) / 1024 / 1024;
const builds: number[] = [];
let learned = associations.signal(ASSOCIATIONS, 1);
for (let i = 0; i < 5; i += 1) {
  const t = performance.now();
  learned = associations.signal(ASSOCIATIONS, i + 2);
  builds.push(performance.now() - t);
}
// One pair recorded into the full store: only its words' part of the signal is worked out again.
const refreshes: number[] = [];
for (let i = 0; i < 20; i += 1) {
  const tool = catalog[i];
  const pair = learnedWords(queryTerms(tool.description));
  associations.observe(pair.map((word) => ({ word, tool: `${tool.backend}\u0000${tool.name}`, definition: 'd', principal: 'p9', atMs: ASSOCIATIONS })));
  const t = performance.now();
  learned = associations.refresh(learned, pair, ASSOCIATIONS);
  refreshes.push(performance.now() - t);
}

const QUERIES = [
  'search jira issues',
  'list kubernetes pods',
  'get github pull request',
  'export stripe invoices',
  'pagerduty incident',
  'count open zendesk tickets',
  'describe s3 bucket',
  'grafana dashboard',
  'postgres table',
  'sentry alerts',
  'okta users of a team',
  'terraform workspace',
  'salesforce customer contract',
  'slack channel messages',
  'kubernets deploymnt',
  'summarize notion pages',
  'snowflake query',
  'hubspot customers',
  'confluence page comments',
  'datadog metric jargon17 jargon4021',
];
const without: number[] = [];
const withLearning: number[] = [];
for (let round = 0; round < 100; round += 1) {
  for (const q of QUERIES) {
    let t = performance.now();
    searchTools(index, q, { topK: 5 });
    without.push(performance.now() - t);
    t = performance.now();
    searchTools(index, q, { topK: 5, learned });
    withLearning.push(performance.now() - t);
  }
}
const ms = (x: number) => x.toFixed(2);
console.log(`| find_tool at ${N.toLocaleString('en')} tools, in process | p50 ms | p99 ms |`);
console.log('|---|---:|---:|');
console.log(`| without learning | ${ms(percentile(without, 50))} | ${ms(percentile(without, 99))} |`);
console.log(`| with ${learned.size.toLocaleString('en')} associations in use | ${ms(percentile(withLearning, 50))} | ${ms(percentile(withLearning, 99))} |`);
console.log(
  `\nBuilding the ranking's signal from the whole store: ${ms(median(builds))} ms (median of 5); after one pair, its words only: ${ms(median(refreshes))} ms (median of 20); the store's heap: ${heapMiB.toFixed(1)} MiB.`,
);

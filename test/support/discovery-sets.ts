import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CatalogTool } from '../../src/registry/registry.types';

/**
 * The public tool-retrieval sets in `bench/discovery/` (each with its LICENSE and source), split
 * once and for all into a tune part and a test part, and scored the way `find_tool` is used: the
 * first hits of a query, any tool of its `want` list counting as found. Shared by
 * `npm run eval:discovery` and the floor test, so both measure the same thing.
 */

export const DISCOVERY_SETS = ['livemcpbench', 'bfcl-live', 'metatool'] as const;
export type DiscoverySetName = (typeof DISCOVERY_SETS)[number];

/**
 * Which part a query belongs to, from its text alone: the first byte of its SHA-256, below 128 is
 * `tune` (what may be looked at while developing the ranking), the rest `test` (reported, never
 * tuned on). A hash, not the file order, so the parts do not follow how a set was written down,
 * and a query keeps its part whatever else is added to the set.
 */
export type Part = 'tune' | 'test';

export function partOf(query: string): Part {
  return createHash('sha256').update(query, 'utf8').digest()[0] < 128 ? 'tune' : 'test';
}

export interface LabelledQuery {
  query: string;
  /** `backend NUL name` keys of the tools that answer it. */
  want: ReadonlySet<string>;
}

export interface DiscoverySet {
  name: DiscoverySetName;
  tools: CatalogTool[];
  queries: Record<Part, LabelledQuery[]>;
}

interface RawSet {
  tools: { server: string; name: string; description?: string; inputSchema?: Record<string, unknown> }[];
  queries: { query: string; want: { server: string; name: string }[] }[];
}

/**
 * A set's server names as an operator would name its backends in the config
 * (`[a-z][a-z0-9-]{0,62}`): "MCP Yahoo Finance" becomes `mcp-yahoo-finance`.
 */
export function backendName(server: string): string {
  const slug = server
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^[^a-z]+|-+$/g, '')
    .slice(0, 63);
  return slug === '' ? 'server' : slug;
}

export function toolKey(backend: string, name: string): string {
  return `${backend}\u0000${name}`;
}

/** The folder of the sets, found above the compiled file (works for `dist/` and the source tree). */
function setsDir(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    const candidate = join(dir, 'bench', 'discovery');
    if (existsSync(join(candidate, 'metatool', 'eval.json'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`bench/discovery/ not found above ${__dirname}`);
  }
}

export function loadDiscoverySet(name: DiscoverySetName): DiscoverySet {
  const raw = JSON.parse(readFileSync(join(setsDir(), name, 'eval.json'), 'utf8')) as RawSet;
  const seen = new Set<string>();
  const tools: CatalogTool[] = [];
  for (const t of raw.tools) {
    const backend = backendName(t.server);
    const key = toolKey(backend, t.name);
    if (seen.has(key)) continue;
    seen.add(key);
    tools.push({
      backend,
      name: t.name,
      description: t.description ?? '',
      inputSchema: t.inputSchema ?? { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
    });
  }
  const queries: Record<Part, LabelledQuery[]> = { tune: [], test: [] };
  for (const q of raw.queries) {
    const want = new Set(q.want.map((w) => toolKey(backendName(w.server), w.name)));
    queries[partOf(q.query)].push({ query: q.query, want });
  }
  return { name, tools, queries };
}

/** Ranks a query: the keys of its first hits, best first. */
export type Ranker = (query: string, topK: number) => readonly string[];

export interface PartScore {
  queries: number;
  recallAt1: number;
  recallAt5: number;
  mrrAt10: number;
  p50Ms: number;
  p99Ms: number;
  /** Queries whose wanted tools were not in the first 10 hits, for looking at (tune part only). */
  misses: { query: string; want: string[]; got: string[] }[];
}

const TOP_K = 10;

/** Scores one part: recall@1, recall@5, MRR@10 and the latency of each ranking call. */
export function scorePart(queries: readonly LabelledQuery[], rank: Ranker, now: () => number): PartScore {
  let at1 = 0;
  let at5 = 0;
  let reciprocal = 0;
  const times: number[] = [];
  const misses: PartScore['misses'] = [];
  for (const { query, want } of queries) {
    const started = now();
    const keys = rank(query, TOP_K);
    times.push(now() - started);
    const at = keys.findIndex((key) => want.has(key));
    if (at === 0) at1 += 1;
    if (at >= 0 && at < 5) at5 += 1;
    if (at >= 0) reciprocal += 1 / (at + 1);
    else misses.push({ query, want: [...want], got: keys.slice(0, 5) });
  }
  times.sort((a, b) => a - b);
  const n = Math.max(1, queries.length);
  const quantile = (q: number): number => (times.length === 0 ? 0 : times[Math.min(times.length - 1, Math.floor(q * times.length))]);
  return { queries: queries.length, recallAt1: at1 / n, recallAt5: at5 / n, mrrAt10: reciprocal / n, p50Ms: quantile(0.5), p99Ms: quantile(0.99), misses };
}

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { EmbeddingsConfig } from '../src/config/config.types';
import { startEmbeddingsServer, type EmbeddingsFixture } from './fixtures/embeddings-server';
import { freePort } from './support/backend-servers';
import { until, waitFor } from './support/backend-processes';
import { deltas, scrapeMetrics } from './support/metrics';
import { callTool, everythingBackend, memoryBackend, startRouter, tempDir, testConfig, type RunningRouter } from './support/router';

/**
 * find_tool with an embeddings endpoint: the real router, real demo backends,
 * and a local endpoint speaking the OpenAI embeddings API with a deterministic model of its own.
 * Read as a model reads the answers (hits) and as an operator does (metrics, log lines).
 */

const TOKEN = 'embeddings-test-token-Zq8';
/**
 * A word only the fixture model understands (neither the catalog nor the router's offline lexicon
 * links it to memory), so what the dense signal adds is seen apart from the lexical ranking's own
 * related words.
 */
const REMEMBER = 'zettelkasten Alice';
const PLUS = 'what is 12 plus 30';
const FAILURES = 'centralmcp_router_embeddings_failures_total';

interface Hit {
  name: string;
  server: string;
  score: number;
}

/** JSON log lines the router writes while `capture` runs (stdout and stderr). */
function captureLogs(): { lines: string[]; restore(): void } {
  const lines: string[] = [];
  const streams = [process.stdout, process.stderr] as const;
  const originals = streams.map((s) => s.write.bind(s));
  streams.forEach((stream, i) => {
    stream.write = (chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      if (text.startsWith('{"level"')) {
        lines.push(text);
        return true;
      }
      return (originals[i] as (...a: unknown[]) => boolean)(chunk, ...rest);
    };
  });
  return { lines, restore: () => streams.forEach((stream, i) => (stream.write = originals[i])) };
}

/** The endpoint's config; a query's deadline (timeoutMs) that a loaded box keeps with room to spare. */
function embeddings(url: string, over: Partial<EmbeddingsConfig> = {}): EmbeddingsConfig {
  return { url, model: 'fixture-model', headers: { Authorization: `Bearer ${TOKEN}` }, timeoutMs: 5000, batchTimeoutMs: 5000, batchSize: 8, ...over };
}

async function find(client: Client, query: string, extra: Record<string, unknown> = {}): Promise<Hit[]> {
  const { isError, data } = await callTool(client, 'find_tool', { query, ...extra });
  assert.equal(isError, false, JSON.stringify(data));
  return data.hits;
}

/** 1-based rank of the first memory tool among `hits`, Infinity when there is none. */
const memoryRank = (hits: Hit[]) => {
  const at = hits.findIndex((h) => h.server.startsWith('memory'));
  return at < 0 ? Number.POSITIVE_INFINITY : at + 1;
};

describe('find_tool with an embeddings endpoint', () => {
  let endpoint: EmbeddingsFixture;
  let router: RunningRouter;
  let client: Client;
  let logs: ReturnType<typeof captureLogs>;
  let catalogSize = 0;
  /** Tool texts: everything the endpoint was sent that is not a query of these tests. */
  const queries = new Set<string>();
  const toolTextCounts = () => [...endpoint.counts()].filter(([text]) => !queries.has(text));
  const embeddedTools = async () => (await scrapeMetrics(router)).get('centralmcp_router_embeddings_tools') ?? -1;
  const search = async (query: string, extra: Record<string, unknown> = {}) => {
    queries.add(query);
    return find(client, query, extra);
  };
  const warnings = (since: number) => logs.lines.slice(since).filter((l) => l.includes('embeddings endpoint failed'));

  before(async () => {
    const dir = tempDir('centralmcp-embeddings-');
    endpoint = await startEmbeddingsServer('ok');
    logs = captureLogs();
    // Two memory servers serve the same tools: their texts are the same, embedded once.
    router = await startRouter(
      testConfig([memoryBackend(join(dir, 'a.jsonl')), { ...memoryBackend(join(dir, 'b.jsonl')), name: 'memory-b' }, everythingBackend()], {
        discovery: { embeddings: embeddings(endpoint.url) },
      }),
    );
    client = await router.connect();
    await waitFor(() => router.app.getHttpServer().listening, 60_000, 'listening');
  });
  after(async () => {
    await router?.close();
    logs?.restore();
    await endpoint?.close();
  });

  test('each distinct tool text is embedded once, in batches, with the configured model and headers', async () => {
    await until(
      async () => {
        const samples = await scrapeMetrics(router);
        catalogSize = [...samples].filter(([k]) => k.startsWith('centralmcp_router_catalog_tools{')).reduce((sum, [, v]) => sum + v, 0);
        return catalogSize > 20 && samples.get('centralmcp_router_embeddings_tools') === catalogSize;
      },
      60_000,
      'every tool embedded',
    );
    const texts = toolTextCounts();
    assert.ok(
      texts.every(([, count]) => count === 1),
      JSON.stringify(texts.filter(([, c]) => c !== 1)),
    );
    // memory and memory-b share their 9 texts.
    assert.equal(texts.length, catalogSize - 9);
    assert.ok(endpoint.requests.every((r) => r.inputs.length <= 8 && r.model === 'fixture-model' && r.authorization === `Bearer ${TOKEN}`));
    assert.ok(endpoint.requests.length >= Math.ceil(texts.length / 8));
  });

  test('the dense signal changes the ranking; a failing endpoint (500) answers from the lexical ranking', async () => {
    endpoint.mode = 'fail';
    const before = await scrapeMetrics(router);
    const mark = logs.lines.length;
    const lexical = await search(REMEMBER, { top_k: 10 });
    const moved = deltas(before, await scrapeMetrics(router), FAILURES);
    assert.deepEqual(moved, { [`${FAILURES}{reason="http_error"}`]: 1 });
    const [warning] = warnings(mark);
    assert.ok(warning, 'a warning says the ranking is lexical');
    assert.match(warning, /"reason":"http_error"/);
    assert.match(warning, /"httpStatus":500/);
    assert.doesNotMatch(warning, /Alice|zettelkasten/i);
    assert.ok(!logs.lines.some((l) => l.includes(TOKEN)), 'the endpoint credentials are never logged');

    endpoint.mode = 'ok';
    const fused = await search(REMEMBER, { top_k: 5 });
    // The endpoint's model knows a zettelkasten is about memory: a memory tool comes up, higher than
    // in the lexical answer read above from this same router (which has none in its top 10).
    // "12 plus 30" matches no word of any tool; the model knows "plus" is a sum.
    assert.ok(memoryRank(fused) <= 5, JSON.stringify(fused));
    process.stdout.write(
      `# lexical: ${lexical.map((h) => `${h.server}:${h.name}`).join(' ')}\n# fused: ${fused.map((h) => `${h.server}:${h.name}:${h.score}`).join(' ')}\n`,
    );
    assert.ok(memoryRank(fused) < memoryRank(lexical), `fused ${JSON.stringify(fused)} lexical ${JSON.stringify(lexical)}`);
    const [sum] = await search(PLUS);
    assert.equal(sum?.name, 'get-sum');
  });

  test('the server filter holds for dense hits; a repeated query is not embedded again', async () => {
    const hits = await search(REMEMBER, { top_k: 10, server: 'memory-b' });
    assert.ok(hits.length > 0);
    assert.deepEqual([...new Set(hits.map((h) => h.server))], ['memory-b']);
    const sent = endpoint.requests.length;
    await search(REMEMBER, { top_k: 10 });
    await search(PLUS);
    assert.equal(endpoint.requests.length, sent);
  });

  test('an endpoint that never answers: find_tool answers from the lexical ranking after timeoutMs', async () => {
    const query = 'what do you remember about Bob';
    endpoint.mode = 'fail';
    const lexical = await search(query, { top_k: 10 });
    endpoint.mode = 'hang';
    const before = await scrapeMetrics(router);
    const mark = logs.lines.length;
    assert.deepEqual(await search(query, { top_k: 10 }), lexical);
    assert.deepEqual(deltas(before, await scrapeMetrics(router), FAILURES), { [`${FAILURES}{reason="timeout"}`]: 1 });
    assert.match(warnings(mark)[0] ?? '', /"reason":"timeout"/);
    // Rate-limited: a second timeout within the minute is counted, not logged again.
    const mark2 = logs.lines.length;
    await search('what do you remember about Carol', { top_k: 10 });
    assert.deepEqual(warnings(mark2), []);
    assert.deepEqual(deltas(before, await scrapeMetrics(router), FAILURES), { [`${FAILURES}{reason="timeout"}`]: 2 });
  });

  test('a vector of another dimension: lexical answer at once, then the catalog is embedded again', async () => {
    const query = 'what do you remember about Dave';
    endpoint.mode = 'fail';
    const lexical = await search(query, { top_k: 10 });
    endpoint.mode = 'dim';
    const before = await scrapeMetrics(router);
    const mark = logs.lines.length;
    assert.deepEqual(await search(query, { top_k: 10 }), lexical);
    assert.deepEqual(deltas(before, await scrapeMetrics(router), FAILURES), { [`${FAILURES}{reason="dimension"}`]: 1 });
    assert.match(warnings(mark)[0] ?? '', /"reason":"dimension".*"dimensions":\{"from":256,"to":128\}/);
    // Every tool text is sent once more, for the new model, and dense ranking is back.
    await until(async () => (await embeddedTools()) === catalogSize, 60_000, 'every tool re-embedded');
    const texts = toolTextCounts();
    assert.ok(
      texts.every(([, count]) => count === 2),
      JSON.stringify(texts.filter(([, c]) => c !== 2)),
    );
    const fused = await search(REMEMBER, { top_k: 5 });
    assert.ok(memoryRank(fused) <= 5, JSON.stringify(fused));
  });
});

describe('find_tool with an embeddings endpoint that is down from the start', () => {
  let router: RunningRouter;
  let client: Client;

  before(async () => {
    const port = await freePort();
    const discovery = { embeddings: embeddings(`http://127.0.0.1:${port}/v1/embeddings`) };
    router = await startRouter(testConfig([everythingBackend()], { discovery, logLevel: 'error' }));
    client = await router.connect();
  });
  after(async () => router?.close());

  test('readiness does not wait for it, find_tool answers lexically, and the failures are counted', async () => {
    const ready = () => fetch(router.url.replace(/\/mcp$/, '/health/ready')).then((r) => r.status);
    await until(async () => (await ready()) === 200, 60_000, 'ready');
    const [hit] = await find(client, 'sum of two numbers');
    assert.equal(hit?.name, 'get-sum');
    await until(async () => ((await scrapeMetrics(router)).get(`${FAILURES}{reason="unreachable"}`) ?? 0) >= 1, 60_000, 'the failed catalog batch is counted');
    assert.equal((await scrapeMetrics(router)).get('centralmcp_router_embeddings_tools'), 0);
  });
});

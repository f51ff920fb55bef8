import assert from 'node:assert/strict';
import { Logger } from '@nestjs/common';
import { after, before, beforeEach, test } from 'node:test';
import { startEmbeddingsServer, type EmbeddingsFixture } from '../../test/fixtures/embeddings-server';
import { waitFor } from '../../test/support/backend-processes';
import { EmbeddingsService } from './embeddings.service';
import { RegistryService } from '../registry/registry.service';
import type { CatalogTool } from '../registry/registry.types';
import { ToolSearchService } from './tool-search.service';

/** ToolSearchService with its EmbeddingsService over a RegistryService, against a local OpenAI-compatible endpoint. */

let endpoint: EmbeddingsFixture;
const services: EmbeddingsService[] = [];

before(async () => {
  // The warnings are the e2e test's to read; here they would only fill the test output.
  Logger.overrideLogger(false);
  endpoint = await startEmbeddingsServer('ok');
});
after(async () => {
  for (const s of services) s.onModuleDestroy();
  await endpoint.close();
});
beforeEach(() => {
  endpoint.mode = 'ok';
  endpoint.refuse = undefined;
  endpoint.requests.length = 0;
});

interface Searched {
  registry: RegistryService;
  search: ToolSearchService;
  embeddings: EmbeddingsService;
}

function searched(): Searched {
  const embeddings = new EmbeddingsService({
    embeddings: { url: endpoint.url, model: 'm', headers: {}, timeoutMs: 300, batchTimeoutMs: 2000, batchSize: 4 },
  });
  services.push(embeddings);
  const catalog = new RegistryService();
  return { registry: catalog, search: new ToolSearchService(catalog, embeddings, undefined), embeddings };
}

const tool = (backend: string, name: string, description: string): CatalogTool => ({ backend, name, description, inputSchema: { type: 'object' } });
const CATALOG = {
  kb: [tool('kb', 'open_nodes', 'Open nodes of the knowledge graph'), tool('kb', 'read_graph', 'Read the whole knowledge graph')],
  util: [tool('util', 'get-sum', 'Returns the sum of two numbers'), tool('util', 'echo', 'Echoes back the input string')],
};
const sentTexts = () => endpoint.requests.flatMap((r) => r.inputs);
/**
 * The tools' texts sent (`name: description`), without queries: on a loaded machine a query of the
 * test before can reach the endpoint after this test began.
 */
const toolTexts = () => sentTexts().filter((t) => t.includes(': '));
const names = (hits: { tool: CatalogTool }[]) => hits.map((h) => `${h.tool.backend}:${h.tool.name}`);

async function loaded(): Promise<Searched> {
  const r = searched();
  r.registry.replaceTools('kb', CATALOG.kb);
  r.registry.replaceTools('util', CATALOG.util);
  await waitFor(() => r.embeddings.stats().embeddedTools === 4, 60_000, 'tools embedded');
  return r;
}

test('dense hits respect the caller filter and the server filter', async () => {
  const { search } = await loaded();
  // No word of this query is in the catalog: only the dense ranking finds anything.
  assert.deepEqual(names(await search.search('remember', 2)), ['kb:open_nodes', 'kb:read_graph']);
  assert.deepEqual(names(await search.search('remember', 1, undefined, (t) => t.name !== 'open_nodes')), ['kb:read_graph']);
  const onlyUtil = await search.search('remember', 5, 'util');
  assert.deepEqual([...new Set(onlyUtil.map((h) => h.tool.backend))], ['util']);
  assert.deepEqual(await search.search('remember', 5, undefined, () => false), []);
  assert.deepEqual(names(await search.search('what is 12 plus 30', 1)), ['util:get-sum']);
});

test('refreshes embed only what changed; a tool shared by backends or back after leaving is not embedded again', async () => {
  const { registry, embeddings } = await loaded();
  assert.equal(toolTexts().length, 4);
  registry.replaceTools(
    'kb',
    CATALOG.kb.map((t) => ({ ...t })),
  );
  registry.replaceTools(
    'copy',
    CATALOG.util.map((t) => ({ ...t, backend: 'copy' })),
  );
  registry.replaceTools('util', [CATALOG.util[0]]);
  registry.replaceTools('util', CATALOG.util);
  registry.replaceTools('kb', [CATALOG.kb[0], { ...CATALOG.kb[1], description: 'Read the entire knowledge graph' }]);
  await waitFor(() => embeddings.stats().embeddedTools === 6, 60_000, 'tools embedded');
  assert.deepEqual(toolTexts().slice(4), ['read_graph: Read the entire knowledge graph']);
});

test('a catalog update never waits for the endpoint; until tools are embedded, search is lexical and sends nothing', async () => {
  endpoint.mode = 'hang';
  const r = searched();
  r.registry.replaceTools('util', CATALOG.util);
  assert.equal(r.registry.sizes().get('util'), 2);
  assert.deepEqual(names(await r.search.search('sum of numbers', 1)), ['util:get-sum']);
  await waitFor(() => endpoint.requests.length === 1, 60_000, 'the batch was sent');
  r.embeddings.onModuleDestroy();
  assert.deepEqual(names(await r.search.search('sum of numbers', 1)), ['util:get-sum']);
  assert.equal(endpoint.requests.length, 1, 'only the tool batch; no query was embedded');
});

test('a text the endpoint refuses (400) is split out of its batch and skipped; every other tool is embedded', async () => {
  endpoint.refuse = (text) => text.startsWith('echo');
  const r = searched();
  const many = Array.from({ length: 9 }, (_, i) => tool('util', `tool_${i}`, `Tool number ${i}`));
  r.registry.replaceTools('util', [...many.slice(0, 5), CATALOG.util[1], ...many.slice(5)]);
  await waitFor(() => r.embeddings.stats().embeddedTools === 9, 60_000, 'every other tool embedded');
  await new Promise((resolve) => setTimeout(resolve, 100));
  const echoes = endpoint.requests.filter((q) => q.inputs.some((t) => t.startsWith('echo')));
  assert.equal(echoes.at(-1)?.inputs.length, 1, 'the refused text ends up alone');
  assert.equal(endpoint.requests.filter((q) => q.inputs.length === 1 && q.inputs[0].startsWith('echo')).length, 1, 'and is not sent again');
  assert.equal(r.embeddings.stats().failures.get('http_error'), echoes.length);
  assert.equal(r.embeddings.stats().embeddedTools, 9);
});

test('an endpoint that refuses every text (a wrong model name, say) is tried again later, not text by text', async () => {
  endpoint.refuse = () => true;
  const r = searched();
  const many = Array.from({ length: 40 }, (_, i) => tool('util', `tool_${i}`, `Tool number ${i}`));
  r.registry.replaceTools('util', many);
  // 4 texts a batch: split to 4, 2, 1, then two more single texts refused make three in a row,
  // and the retry waits (1 s) instead of trying the other 37 texts one by one.
  await waitFor(() => endpoint.requests.length >= 5, 60_000, 'the batch split');
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.deepEqual(
    endpoint.requests.map((q) => q.inputs.length),
    [4, 2, 1, 1, 1],
  );
  endpoint.refuse = undefined;
  await waitFor(() => r.embeddings.stats().embeddedTools === 40, 60_000, 'embedded once the endpoint takes them');
});

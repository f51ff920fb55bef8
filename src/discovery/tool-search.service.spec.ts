import assert from 'node:assert/strict';
import { Logger } from '@nestjs/common';
import { before, test } from 'node:test';
import { RegistryService } from '../registry/registry.service';
import type { CatalogTool } from '../registry/registry.types';
import { EmbeddingsService } from './embeddings.service';
import { ToolSearchService } from './tool-search.service';

/** Lexical search only (no embeddings endpoint); the fused search is in embeddings.service.spec.ts. */

const tool = (backend: string, name: string, description: string): CatalogTool => ({ backend, name, description, inputSchema: { type: 'object' } });
const names = (hits: { tool: CatalogTool }[]) => hits.map((h) => `${h.tool.backend}:${h.tool.name}`);

before(() => {
  Logger.overrideLogger(false);
});

test('the search follows the catalog in the turn of each refresh', async () => {
  const registry = new RegistryService();
  const search = new ToolSearchService(registry, new EmbeddingsService(), undefined);
  registry.replaceTools('files', [tool('files', 'read_file', 'Read a file')]);
  assert.deepEqual(names(await search.search('read file', 5)), ['files:read_file']);
  registry.replaceTools('files', [tool('files', 'move_file', 'Move a file')]);
  assert.deepEqual(names(await search.search('move', 5)), ['files:move_file']);
  assert.deepEqual(names(await search.search('read', 5)).includes('files:read_file'), false);
});

test('catalogs delivered before the search existed are searched too', async () => {
  const registry = new RegistryService();
  registry.replaceTools('files', [tool('files', 'read_file', 'Read a file')]);
  registry.replaceTools('mail', [tool('mail', 'send_mail', 'Send a message')]);
  const search = new ToolSearchService(registry, new EmbeddingsService(), undefined);
  assert.deepEqual(names(await search.search('send a message', 1)), ['mail:send_mail']);
  assert.deepEqual(names(await search.search('read', 1)), ['files:read_file']);
});

test("the backend and the caller's filter narrow the hits", async () => {
  const registry = new RegistryService();
  const search = new ToolSearchService(registry, new EmbeddingsService(), undefined);
  registry.replaceTools('a', [tool('a', 'read_file', 'Read a file')]);
  registry.replaceTools('b', [tool('b', 'read_file', 'Read a file')]);
  assert.deepEqual(names(await search.search('read file', 5)), ['a:read_file', 'b:read_file']);
  assert.deepEqual(names(await search.search('read file', 5, 'b')), ['b:read_file']);
  assert.deepEqual(names(await search.search('read file', 5, undefined, (t) => t.backend === 'a')), ['a:read_file']);
});

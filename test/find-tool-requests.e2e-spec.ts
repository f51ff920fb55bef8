import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool, everythingBackend, filesBackend, memoryBackend, startRouter, tempDir, testConfig, type RunningRouter } from './support/router';

/**
 * Plain requests a new user types, against the real router over the three demo backends, read as
 * a model reads find_tool's answer: none of them names a tool or uses a catalog word for what it
 * wants (README, "How find_tool ranks").
 */

interface Hit {
  name: string;
  server: string;
  score: number;
}

describe('find_tool answers plain requests over the demo backends', () => {
  let router: RunningRouter;
  let client: Client;

  const find = async (query: string): Promise<string[]> => {
    const { isError, data } = await callTool(client, 'find_tool', { query, top_k: 5 });
    assert.equal(isError, false, JSON.stringify(data));
    return (data.hits as Hit[]).filter((hit) => hit.score > 0).map((hit) => `${hit.server}:${hit.name}`);
  };

  before(async () => {
    router = await startRouter(testConfig([filesBackend(tempDir()), memoryBackend(join(tempDir(), 'memory.jsonl')), everythingBackend()]));
    client = await router.connect();
    // Every backend's catalog is in before the first request is judged.
    for (const deadline = Date.now() + 30_000; ;) {
      const hits = [...(await find('knowledge graph')), ...(await find('sum')), ...(await find('directory'))];
      if (['memory:', 'everything:', 'files:'].every((backend) => hits.some((hit) => hit.startsWith(backend)))) break;
      assert.ok(Date.now() < deadline, `catalogs not loaded: ${hits.join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  after(async () => router?.close());

  test('"what is 12 plus 30" finds the tool that sums numbers first', async () => {
    assert.equal((await find('what is 12 plus 30'))[0], 'everything:get-sum');
  });

  test('"load photo.jpg so I can see it" finds the tools that return images', async () => {
    const hits = await find('load photo.jpg so I can see it');
    assert.ok(hits.includes('files:read_media_file'), hits.join(', '));
  });

  test('"what do you remember about Alice" finds a memory tool in the top 5', async () => {
    const hits = await find('what do you remember about Alice');
    assert.ok(
      hits.some((hit) => hit.startsWith('memory:')),
      hits.join(', '),
    );
  });

  test('"read a file" does not put the deprecated read_file first', async () => {
    const hits = await find('read a file');
    assert.notEqual(hits[0], 'files:read_file');
    assert.ok(hits.slice(0, 3).includes('files:read_text_file'), hits.join(', '));
  });

  test('"phtoo" and "pciture", misspellings no catalog word is near, find the image tools', async () => {
    for (const query of ['phtoo', 'pciture']) {
      const hits = await find(query);
      assert.equal(hits[0], 'everything:get-tiny-image', `${query}: ${hits.join(', ')}`);
      assert.ok(hits.slice(0, 2).includes('files:read_media_file'), `${query}: ${hits.join(', ')}`);
    }
  });

  test('"ls the folder" and "cat the notes" read command names as what they do', async () => {
    assert.equal((await find('ls the folder'))[0], 'files:list_directory');
    assert.equal((await find('cat the notes'))[0], 'files:read_text_file');
  });
});

describe('find_tool reads a word that only names a server as evidence for all of its tools', () => {
  let router: RunningRouter;
  let client: Client;

  before(async () => {
    // The memory server as an operator might name it: "knowledge" is in three of its tools'
    // descriptions ("the knowledge graph") and in none of their names.
    router = await startRouter(testConfig([memoryBackend(join(tempDir(), 'memory.jsonl'), { name: 'knowledge' })]));
    client = await router.connect();
  });
  after(async () => router?.close());

  test('"knowledge" lifts the server\'s tools alike, not the one whose description is shortest', async () => {
    for (const deadline = Date.now() + 30_000; ;) {
      const { isError, data } = await callTool(client, 'find_tool', { query: 'knowledge', top_k: 10 });
      assert.equal(isError, false, JSON.stringify(data));
      const hits = data.hits as Hit[];
      if (hits.length >= 3) {
        assert.ok(
          hits.every((hit) => hit.server === 'knowledge'),
          JSON.stringify(hits),
        );
        assert.equal(new Set(hits.map((hit) => hit.score)).size, 1, JSON.stringify(hits));
        return;
      }
      assert.ok(Date.now() < deadline, `catalog not loaded: ${JSON.stringify(hits)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
});

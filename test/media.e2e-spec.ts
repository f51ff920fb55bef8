import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { randomPng } from './support/png';
import {
  filesBackend,
  rawToolCall,
  readAsModel,
  startRouter,
  tempDir,
  testConfig,
  type BatchAnswer,
  type RunningRouter,
  type SingleAnswer,
} from './support/router';

/**
 * Images through the real filesystem server (`read_media_file` answers an image block and repeats
 * it in its structured content). A media block is sent once, as its block in `content`; the
 * envelope refers to it without its bytes; one larger than the budget is a clear error, never a
 * cursor through base64.
 */

const dir = tempDir('centralmcp-media-');
const SMALL = join(dir, 'small.png');
const LARGE = join(dir, 'large.png');
let small: string;
let large: string;

/** How many times `needle` occurs in `text`. */
const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

before(() => {
  writeFileSync(SMALL, randomPng(100));
  writeFileSync(LARGE, randomPng(190));
  small = readFileSync(SMALL).toString('base64');
  large = readFileSync(LARGE).toString('base64');
  assert.ok(readFileSync(SMALL).length > 29_000 && readFileSync(SMALL).length < 32_000);
  assert.ok(readFileSync(LARGE).length > 106_000 && readFileSync(LARGE).length < 110_000);
});

const readMedia = (path: string) => ({ name: 'read_media_file', arguments: { path } });

describe('images with the default budgets', () => {
  let router: RunningRouter;
  before(async () => {
    router = await startRouter(testConfig([filesBackend(dir)]));
  });
  after(() => router.close());

  for (const [label, path, data] of [
    ['a 30 KB PNG', SMALL, () => small],
    ['a 108 KB PNG', LARGE, () => large],
  ] as const) {
    test(`${label} comes once, as an image block, whole; the envelope refers to it`, async () => {
      const { result, bytes } = await rawToolCall(router, 'invoke_read_tool', readMedia(path));
      const { head, blocks } = readAsModel(result);
      assert.equal(head.status, 'ok');
      assert.equal(head.truncated, undefined);
      assert.equal(head.next_cursor, undefined);
      assert.deepEqual(blocks, [{ type: 'image', data: data(), mimeType: 'image/png' }]);
      const size = readFileSync(path).length;
      assert.deepEqual((result.structuredContent as unknown as SingleAnswer).result, {
        content: [{ type: 'image', mimeType: 'image/png', bytes: size, data_in: 'content' }],
      });
      assert.equal(occurrences(JSON.stringify(result), data().slice(0, 64)), 1, 'the bytes are sent once');
      assert.ok(bytes < data().length + 2_000, `${bytes} bytes sent for ${data().length} of base64`);
    });
  }

  test('a batch of both carries each image once, under its header', async () => {
    const { result } = await rawToolCall(router, 'invoke_read_tool_batch', { calls: [readMedia(SMALL), readMedia(LARGE)] });
    const { head, blocks } = readAsModel<BatchAnswer>(result);
    assert.equal(head.ok, true, JSON.stringify(head));
    assert.deepEqual(
      blocks.map((b) => (b.type === 'image' ? b.data : b.text)),
      ['── entry 0, id "0": ok ──', small, '── entry 1, id "1": ok ──', large],
    );
    assert.equal(occurrences(JSON.stringify(result), large.slice(0, 64)), 1);
  });
});

describe('an image larger than the response budget (RESPONSE_MAX_BYTES 100000)', () => {
  let router: RunningRouter;
  before(async () => {
    router = await startRouter(
      testConfig([filesBackend(dir)], { budgets: { responseMaxBytes: 100_000, responseMaxItems: 200, batchResponseMaxBytes: 300_000 } }),
    );
  });
  after(() => router.close());

  test('answers response_too_large naming its size and the budget, with no cursor and no base64', async () => {
    const { result, bytes } = await rawToolCall(router, 'invoke_read_tool', readMedia(LARGE));
    assert.equal(result.isError, true);
    const { head } = readAsModel(result);
    assert.equal(head.status, 'error');
    assert.equal(head.error?.code, 'response_too_large');
    assert.equal(head.next_cursor, undefined);
    const size = readFileSync(LARGE).length;
    assert.equal(
      head.error?.message,
      `the result holds an image block (image/png) of ${large.length.toLocaleString('en-US')} bytes as base64 (${size.toLocaleString('en-US')} decoded), ` +
        'larger than the response budget of 100,000 bytes; a media block is sent whole or not at all',
    );
    assert.ok(bytes < 2_000, `${bytes} bytes`);
  });

  test('a smaller image still comes whole', async () => {
    const { result } = await rawToolCall(router, 'invoke_read_tool', readMedia(SMALL));
    assert.deepEqual(readAsModel(result).blocks, [{ type: 'image', data: small, mimeType: 'image/png' }]);
  });
});

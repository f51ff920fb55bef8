import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { draftItem, finishBatch } from './batch-response';
import { BATCH_SHARE_ADVICE, BATCH_SHARE_NAME, tooLargeAnswer, type CursorIssuer } from './bound-answer';
import type { ToolResultLike } from './bounding';
import { decodedBytes, referMedia } from './media';
import { modelBlocks } from './model-content';
import type { ReadAnswer } from './read-answer';
import { boundSingle } from './single-answer';

const issuer: CursorIssuer = { issue: () => 'c1.next', ttlSeconds: 900 };
const base: ReadAnswer = { tool: 'read_media_file', server: 'files', status: 'ok' };
const png = (bytes: number) => randomBytes(bytes).toString('base64');

/** What the filesystem server's read_media_file answers: the block, and the same block again as structured content. */
function mediaResult(data: string): ToolResultLike {
  const block = { type: 'image', data, mimeType: 'image/png' };
  return { content: [block], structuredContent: { content: [block] } };
}

/** How many times `needle` occurs in `text`. */
function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

test('a media block becomes a reference in the envelope; its bytes go to the model once', () => {
  const data = png(3000);
  const referred = referMedia(mediaResult(data));
  assert.deepEqual(JSON.parse(JSON.stringify(referred)), { content: [{ type: 'image', mimeType: 'image/png', bytes: 3000, data_in: 'content' }] });
  assert.deepEqual(modelBlocks(referred, 'files'), [{ type: 'image', data, mimeType: 'image/png' }]);
});

test('structured content that holds more than the repeat keeps it, with the repeat as a reference', () => {
  const data = png(30);
  const block = { type: 'audio', data, mimeType: 'audio/wav', annotations: { audience: ['user'] } };
  const referred = referMedia({ content: [block], structuredContent: { clip: block, seconds: 3 } });
  assert.deepEqual(JSON.parse(JSON.stringify(referred.structuredContent)), {
    clip: { type: 'audio', mimeType: 'audio/wav', annotations: { audience: ['user'] }, bytes: 30, data_in: 'content' },
    seconds: 3,
  });
  // The model reads the data beside the repeat as text, and the audio once, as audio.
  assert.deepEqual(modelBlocks(referred, 'files'), [
    { type: 'text', text: JSON.stringify(referred.structuredContent) },
    { type: 'audio', data, mimeType: 'audio/wav' },
  ]);
});

test('a binary resource is referred to as well; results without media, or with broken media, stay as they are', () => {
  const blob = png(12);
  const referred = referMedia({ content: [{ type: 'resource', resource: { uri: 'file:///a.bin', mimeType: 'application/octet-stream', blob } }] });
  assert.deepEqual(JSON.parse(JSON.stringify(referred.content)), [
    { type: 'resource', resource: { uri: 'file:///a.bin', mimeType: 'application/octet-stream', bytes: 12, data_in: 'content' } },
  ]);
  assert.deepEqual(modelBlocks(referred, 'files'), [{ type: 'resource', resource: { uri: 'file:///a.bin', mimeType: 'application/octet-stream', blob } }]);
  const text: ToolResultLike = { content: [{ type: 'text', text: 'hi' }], structuredContent: { text: 'hi' } };
  assert.equal(referMedia(text), text);
  const broken: ToolResultLike = { content: [{ type: 'image', data: 'not base64!', mimeType: 'image/png' }] };
  assert.equal(referMedia(broken), broken);
  assert.equal(decodedBytes(png(10)), 10);
  assert.equal(decodedBytes(png(11)), 11);
});

test('a single answer carries the image once, whole, within the budget', () => {
  const data = png(108_000);
  const single = boundSingle({ base, result: referMedia(mediaResult(data)) }, { maxBytes: 200_000, maxItems: 200 }, issuer);
  assert.equal(single.answer.status, 'ok');
  assert.equal(single.answer.truncated, undefined);
  assert.equal(occurrences(single.wire, data), 1);
  assert.ok(Buffer.byteLength(single.wire) < data.length + 1000, `${Buffer.byteLength(single.wire)} bytes for ${data.length} of base64`);
});

test('a media block larger than the budget is an error naming its size and the budget, never a cursor through base64', () => {
  const data = png(108_000);
  const budget = { maxBytes: 100_000, maxItems: 200 };
  const single = boundSingle({ base, result: referMedia(mediaResult(data)) }, budget, issuer);
  assert.equal(single.answer.status, 'error');
  assert.equal(single.answer.next_cursor, undefined);
  assert.equal(
    single.answer.error,
    'the result holds an image block (image/png) of 144,000 bytes as base64 (108,000 decoded), larger than the response budget of 100,000 bytes; ' +
      'a media block is sent whole or not at all',
  );
  assert.ok(!single.wire.includes(data.slice(0, 100)));
  const wire = JSON.parse(single.wire) as { structuredContent: { error: { code: string } } };
  assert.equal(wire.structuredContent.error.code, 'response_too_large');
});

test('in a batch the message names the entry share; the other entries keep their images', () => {
  const small = png(20_000);
  const large = png(90_000);
  const budget = { maxBytes: 60_000, maxItems: 200 };
  const drafts = [small, large].map((data, index) =>
    draftItem({ index, id: String(index) }, { base, result: referMedia(mediaResult(data)) }, budget, issuer, (page, b, shape) =>
      tooLargeAnswer(page, b, shape, BATCH_SHARE_NAME, BATCH_SHARE_ADVICE),
    ),
  );
  const batch = finishBatch(drafts, 300_000);
  assert.equal(batch.response.results[0].status, 'ok');
  assert.equal(occurrences(batch.wire, small), 1);
  assert.equal(batch.response.results[1].status, 'error');
  assert.match(
    batch.response.results[1].error ?? '',
    /of 120,000 bytes as base64 \(90,000 decoded\), larger than this entry's share of the batch response budget of 60,000 bytes; .*: call it alone with invoke_read_tool/,
  );
  assert.match(batch.wire, /── entry 1, id \\"1\\": error \(response_too_large\): the result holds an image block/);
});

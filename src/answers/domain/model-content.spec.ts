import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blocksBytes, escapedBytes, modelBlocks, RESULT_FRAME_BYTES, resultJson, structuredText } from './model-content';

test('backend blocks pass on with their type and payload; text stays unescaped', () => {
  const blocks = modelBlocks(
    {
      content: [
        { type: 'text', text: 'a "quoted"\nline', annotations: { audience: ['user'] } },
        { type: 'image', data: 'iVBORw0=', mimeType: 'image/png', _meta: { x: 1 } },
        { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'body' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAE=' } },
      ],
    },
    'files',
  );
  assert.deepEqual(blocks, [
    { type: 'text', text: 'a "quoted"\nline' },
    { type: 'image', data: 'iVBORw0=', mimeType: 'image/png' },
    { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
    { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'body' } },
    { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAE=' } },
  ]);
});

test('a resource link becomes text naming where it came from; a malformed block becomes text saying so', () => {
  const blocks = modelBlocks(
    {
      content: [
        { type: 'resource_link', uri: 'demo://resource/static/document/1', name: 'Doc 1', mimeType: 'text/plain', description: 'the first' },
        { type: 'image', data: 42 },
        { type: 'audio', data: 'not base64!', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///c.bin', blob: '***' } },
        { type: 'hologram' },
      ],
    },
    'docs',
  );
  assert.deepEqual(blocks, [
    {
      type: 'text',
      text:
        '[resource link from server "docs": demo://resource/static/document/1 (name "Doc 1", text/plain, "the first"); ' +
        'this router does not serve resources: read it with a tool of that server]',
    },
    { type: 'text', text: '[a content block of type "image" from server "docs" that this router cannot pass on]' },
    { type: 'text', text: '[a content block of type "audio" from server "docs" that this router cannot pass on]' },
    { type: 'text', text: '[a content block of type "resource" from server "docs" that this router cannot pass on]' },
    { type: 'text', text: '[a content block of type "hologram" from server "docs" that this router cannot pass on]' },
  ]);
});

test('data only in structuredContent is read as text: its only string as is, else its JSON', () => {
  assert.deepEqual(modelBlocks({ content: [], structuredContent: { content: 'file "text"\n' } }, 'files'), [{ type: 'text', text: 'file "text"\n' }]);
  assert.deepEqual(modelBlocks({ content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }], structuredContent: { a: 1, b: [2] } }, 'x'), [
    { type: 'text', text: '{"a":1,"b":[2]}' },
    { type: 'image', data: 'AA==', mimeType: 'image/png' },
  ]);
  // A text the backend chose to send beside its structured data is what the model reads.
  assert.deepEqual(modelBlocks({ content: [{ type: 'text', text: 'summary' }], structuredContent: { a: 1 } }, 'x'), [{ type: 'text', text: 'summary' }]);
  assert.equal(structuredText({ n: 1 }), '{"n":1}');
  assert.deepEqual(modelBlocks(undefined, 'x'), []);
});

test('sizes are those of the serialization', () => {
  const blocks = [
    { type: 'text', text: 'é"\\\u0001😀' },
    { type: 'image', data: 'AA', mimeType: 'image/png' },
  ];
  const json = resultJson(
    blocks.map((b) => JSON.stringify(b)),
    '{"ok":true}',
    false,
  );
  assert.equal(json, JSON.stringify({ content: blocks, structuredContent: { ok: true }, isError: false }));
  // Each block adds its JSON and one comma; the first block's comma is the one spare byte.
  assert.equal(Buffer.byteLength(json), RESULT_FRAME_BYTES + blocksBytes(blocks) - 1 + Buffer.byteLength('{"ok":true}'));
  assert.equal(escapedBytes('a"b'), Buffer.byteLength(JSON.stringify('a"b')) - 2);
  assert.equal(escapedBytes('é"') + escapedBytes('\u0001'), escapedBytes('é"\u0001'), 'escaping adds up');
});

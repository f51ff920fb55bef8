import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Position } from '../../cursor/domain/position';
import { boundResourceRead, READ_BOUNDS_META_KEY } from './resource-answer';

const publish = (uri: string) => `centralmcp://a/${uri}`;
/** Cursors that carry their position in the clear, so the test can resume with it. */
const issued: Position[] = [];
const cursors = {
  issue: (position: Position) => {
    issued.push(position);
    return String(issued.length - 1);
  },
  ttlSeconds: 60,
};

test('a read within the budget is passed on whole, with published URIs', () => {
  const bound = boundResourceRead(
    [{ uri: 'demo://x', mimeType: 'text/plain', text: 'hello' }],
    { maxBytes: 4096, maxItems: 10 },
    undefined,
    cursors,
    'centralmcp://a/demo://x',
    publish,
  );
  assert.deepEqual(bound, {
    json: JSON.stringify({ contents: [{ uri: 'centralmcp://a/demo://x', mimeType: 'text/plain', text: 'hello' }] }),
    truncated: false,
  });
});

test('a long text is cut into pages within the budget that resume to the whole text', () => {
  const text = 'é'.repeat(5000) + 'z'.repeat(7000);
  const budget = { maxBytes: 4096, maxItems: 10 };
  const pages: string[] = [];
  let from: Position | undefined;
  for (let i = 0; i < 50; i++) {
    const bound = boundResourceRead([{ uri: 'demo://x', text }], budget, from, cursors, 'centralmcp://a/demo://x', publish);
    assert.ok(bound);
    assert.ok(Buffer.byteLength(bound.json) <= budget.maxBytes);
    const result = JSON.parse(bound.json) as {
      contents: { uri: string; text: string }[];
      _meta?: Record<string, { next_cursor?: string; bounds: { resumable: boolean } }>;
    };
    assert.equal(result.contents[0].uri, 'centralmcp://a/demo://x');
    pages.push(result.contents[0].text);
    const cursor = result._meta?.[READ_BOUNDS_META_KEY]?.next_cursor;
    if (cursor === undefined) break;
    from = issued[Number(cursor)];
  }
  assert.ok(pages.length > 2);
  assert.equal(pages.join(''), text);
});

test('a blob is never cut: one over the budget becomes a text entry saying so', () => {
  const bound = boundResourceRead(
    [{ uri: 'demo://b', blob: 'A'.repeat(10_000) }],
    { maxBytes: 4096, maxItems: 10 },
    undefined,
    cursors,
    'centralmcp://a/demo://b',
    publish,
  );
  assert.ok(bound);
  const result = JSON.parse(bound.json) as { contents: { uri: string; text?: string; blob?: string }[] };
  assert.equal(result.contents[0].blob, undefined);
  assert.equal(result.contents[0].uri, 'centralmcp://a/demo://b');
  assert.match(String(result.contents[0].text), /left out: a content block of type blob/);
});

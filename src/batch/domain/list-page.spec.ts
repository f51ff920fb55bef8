import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listPage } from './list-page';

const items = Array.from({ length: 250 }, (_, i) => i);

test('a large listing comes in pages that follow one another without gap or overlap', () => {
  const seen: number[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = listPage(items, cursor, 100);
    assert.ok(page.ok);
    seen.push(...page.items);
    cursor = page.nextCursor;
    pages++;
  } while (cursor !== undefined);
  assert.equal(pages, 3);
  assert.deepEqual(seen, items);
});

test('a small listing is one page without a cursor', () => {
  assert.deepEqual(listPage([1, 2], undefined, 100), { ok: true, items: [1, 2] });
});

test('a cursor the router did not issue, or of a listing that changed since, is refused', () => {
  const first = listPage(items, undefined, 100);
  assert.ok(first.ok && first.nextCursor);
  for (const bad of ['', 'nope', 42, Buffer.from('{"o":-1,"n":250}').toString('base64url')]) {
    assert.equal(listPage(items, bad, 100).ok, false, String(bad));
  }
  const changed = listPage(items.slice(1), first.nextCursor, 100);
  assert.equal(changed.ok, false);
  assert.match(changed.ok ? '' : changed.message, /changed/);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { envelope, follow, text } from '../../../test/support/bounding-pages';
import { boundResult, dedupeResult, hasBackendCursor, type ToolResultLike } from './bounding';

test('a text block repeating structuredContent as compact JSON is dropped', () => {
  const sc = { a: 1, b: [1, 2] };
  const r: ToolResultLike = { content: [text(JSON.stringify(sc)), text('note')], structuredContent: sc };
  assert.deepEqual(dedupeResult(r).content, [text('note')]);
  assert.equal(r.content.length, 2, 'input untouched');
});

test('a pretty-printed copy with other key order is dropped too', () => {
  const sc = { a: 1, b: { c: 'é' } };
  const r: ToolResultLike = { content: [text('{\n  "b": {"c": "\\u00e9"},\n  "a": 1.0\n}')], structuredContent: sc };
  assert.deepEqual(dedupeResult(r).content, []);
});

test('a text equal to the only string field is dropped, other texts stay', () => {
  const r: ToolResultLike = { content: [text('hello'), text('{"other":1}'), { type: 'image', data: 'AA' }], structuredContent: { message: 'hello' } };
  assert.deepEqual(dedupeResult(r).content, [text('{"other":1}'), { type: 'image', data: 'AA' }]);
});

test('without structuredContent nothing is dropped', () => {
  const r: ToolResultLike = { content: [text('{}')] };
  assert.equal(dedupeResult(r), r);
});

test('a backend cursor is a non-empty top-level string under a known name', () => {
  for (const f of ['nextCursor', 'next_cursor', 'cursor', 'next']) {
    assert.equal(hasBackendCursor({ content: [], structuredContent: { [f]: 'abc' } }), true, f);
  }
  assert.equal(hasBackendCursor({ content: [], structuredContent: { next: '' } }), false);
  assert.equal(hasBackendCursor({ content: [], structuredContent: { next: 3 } }), false);
  assert.equal(hasBackendCursor({ content: [], structuredContent: { page: { nextCursor: 'a' } } }), false);
  assert.equal(hasBackendCursor({ content: [] }), false);
});

test('a result within both budgets comes back whole and uncut', () => {
  const r: ToolResultLike = { content: [text('hi')], structuredContent: { rows: [1, 2, 3] } };
  const out = boundResult(r, { maxBytes: 10_000, maxItems: 10 }, undefined, envelope);
  assert.deepEqual(out, { result: r, truncated: false, resumable: false, backendCursor: false });
});

test('the largest array is paged by element, wherever it sits, with the rest of the object kept', () => {
  const rows = Array.from({ length: 200 }, (_, i) => ({ id: i, name: `row ${i}` }));
  const r: ToolResultLike = {
    content: [text('summary for old clients')],
    structuredContent: { total: 200, tags: ['a', 'b'], data: { rows, page: 1 } },
    isError: false,
    _meta: { m: 1 },
  };
  const pages = follow(r, { maxBytes: 2_000, maxItems: 100 });
  assert.ok(pages.length > 2);
  const seen: unknown[] = [];
  for (const p of pages) {
    const sc = p.result.structuredContent as { total: number; tags: string[]; data: { rows: unknown[]; page: number } };
    assert.deepEqual([sc.total, sc.tags, sc.data.page], [200, ['a', 'b'], 1]);
    assert.deepEqual(p.result.content, [], 'content blocks leave while the structured part is paged');
    assert.equal(p.result.isError, false);
    assert.deepEqual(p.result._meta, { m: 1 });
    seen.push(...sc.data.rows);
  }
  assert.deepEqual(seen, rows);
  assert.deepEqual(pages[0].next, {
    kind: 'array',
    path: ['data', 'rows'],
    index: (pages[0].result.structuredContent as { data: { rows: unknown[] } }).data.rows.length,
  });
  assert.equal(pages[0].truncated, true);
  assert.equal(pages[0].reason, 'bytes');
  assert.equal(pages[0].resumable, true);
  const last = pages[pages.length - 1];
  assert.deepEqual([last.truncated, last.next, last.resumable], [false, undefined, false]);
});

test('the item budget pages a small array and says so', () => {
  const r: ToolResultLike = { content: [], structuredContent: { items: Array.from({ length: 10 }, (_, i) => i) } };
  const pages = follow(r, { maxBytes: 100_000, maxItems: 3 });
  assert.deepEqual(
    pages.map((p) => (p.result.structuredContent as { items: number[] }).items),
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]],
  );
  assert.deepEqual(
    pages.map((p) => p.reason),
    ['items', 'items', 'items', undefined],
  );
});

test('an array over the item limit is the one paged even when another is bigger', () => {
  const r: ToolResultLike = { content: [], structuredContent: { big: ['x'.repeat(500)], many: [1, 2, 3, 4, 5] } };
  const out = boundResult(r, { maxBytes: 100_000, maxItems: 2 }, undefined, envelope);
  assert.deepEqual(out.next, { kind: 'array', path: ['many'], index: 2 });
});

test('resuming at or past the end gives an empty final page', () => {
  const r: ToolResultLike = { content: [], structuredContent: { items: [1, 2] } };
  for (const index of [2, 9]) {
    const out = boundResult(r, { maxBytes: 10_000, maxItems: 5 }, { kind: 'array', path: ['items'], index }, envelope);
    assert.deepEqual(out.result.structuredContent, { items: [] });
    assert.deepEqual([out.truncated, out.next], [false, undefined]);
  }
  const past = boundResult({ content: [text('a')] }, { maxBytes: 10_000, maxItems: 5 }, { kind: 'content', block: 1, offset: 0 }, envelope);
  assert.deepEqual([past.result.content, past.next], [[], undefined]);
});

test('a position that no longer resolves ends the pages', () => {
  const r: ToolResultLike = { content: [text('a')], structuredContent: { items: 3 } };
  const out = boundResult(r, { maxBytes: 10_000, maxItems: 5 }, { kind: 'array', path: ['items'], index: 1 }, envelope);
  assert.deepEqual([out.result, out.next, out.truncated], [{ content: [] }, undefined, false]);
});

test('content is paged by whole blocks, then one long text by code units', () => {
  const blocks = [text('short one'), text('ab😀'.repeat(400)), text('short two'), text('short three')];
  const pages = follow({ content: blocks }, { maxBytes: 800, maxItems: 2 });
  const rebuilt: string[] = [];
  let continuing = false;
  for (const p of pages) {
    p.result.content.forEach((b, i) => {
      if (i === 0 && continuing) rebuilt[rebuilt.length - 1] += b.text;
      else rebuilt.push(b.text as string);
    });
    continuing = p.next?.kind === 'content' && p.next.offset > 0;
  }
  assert.deepEqual(
    rebuilt,
    blocks.map((b) => b.text),
  );
});

test('a cut never splits a surrogate pair, whatever the budget', () => {
  const long = '😀'.repeat(300);
  for (let maxBytes = 340; maxBytes < 440; maxBytes++) {
    const pages = follow({ content: [text(long)] }, { maxBytes, maxItems: 5 });
    for (const p of pages) {
      const t = p.result.content[0].text as string;
      assert.ok(t.length > 0 && t.length % 2 === 0, `budget ${maxBytes}: ${t.length} code units`);
    }
    assert.equal(pages.map((p) => p.result.content[0].text).join(''), long);
  }
});

test('an element bigger than the budget sends structuredContent as JSON text', () => {
  const sc = { items: ['y'.repeat(3_000)], note: 'end' };
  const pages = follow({ content: [text('dup')], structuredContent: sc, isError: true }, { maxBytes: 900, maxItems: 5 });
  for (const p of pages) {
    assert.equal(p.result.structuredContent, undefined);
    assert.equal(p.result.isError, true);
    assert.equal(p.next?.kind ?? 'json', 'json');
  }
  assert.equal(pages.map((p) => p.result.content[0].text).join(''), JSON.stringify(sc));
});

test('a big element met while resuming continues as JSON text from that very element', () => {
  const items = ['a', 'b', 'z'.repeat(2_000), 'c'];
  const sc = { items, tail: true };
  const pages = follow({ content: [], structuredContent: sc }, { maxBytes: 700, maxItems: 5 });
  const elements = (pages[0].result.structuredContent as { items: string[] }).items;
  assert.deepEqual(elements, ['a', 'b']);
  const json = pages
    .slice(1)
    .map((p) => p.result.content[0].text)
    .join('');
  assert.equal('{"items":["a","b",' + json, JSON.stringify(sc));
});

test('another array over the item limit forces the JSON fallback', () => {
  const sc = { big: Array.from({ length: 3 }, () => 'w'.repeat(400)), small: [1, 2, 3, 4] };
  const out = boundResult({ content: [], structuredContent: sc }, { maxBytes: 800, maxItems: 3 }, undefined, envelope);
  assert.equal(out.next?.kind, 'json');
});

test('with a backend cursor the page is still cut, but the router issues no cursor', () => {
  const sc = { items: Array.from({ length: 100 }, (_, i) => `item ${i}`), nextCursor: 'backend-token' };
  const out = boundResult({ content: [], structuredContent: sc }, { maxBytes: 600, maxItems: 50 }, undefined, envelope);
  assert.ok(envelope(out.result) <= 600);
  assert.deepEqual([out.truncated, out.next, out.resumable, out.backendCursor], [true, undefined, false, true]);
  assert.equal((out.result.structuredContent as { nextCursor: string }).nextCursor, 'backend-token');
});

test('when not even an empty page fits, the smallest page comes back without a cursor', () => {
  const r: ToolResultLike = { content: [text('x'.repeat(1_000))], structuredContent: { a: 1 }, isError: false };
  const out = boundResult(r, { maxBytes: 50, maxItems: 5 }, undefined, envelope);
  assert.deepEqual(out, { result: { content: [], isError: false }, truncated: true, reason: 'bytes', resumable: false, backendCursor: false });
});

test('structuredContent without arrays rides along while the content is paged', () => {
  const r: ToolResultLike = { content: [text('log line\n'.repeat(300))], structuredContent: { status: 'done' } };
  const pages = follow(r, { maxBytes: 1_000, maxItems: 5 });
  assert.ok(pages.length > 1);
  for (const p of pages) assert.deepEqual(p.result.structuredContent, { status: 'done' });
  assert.equal(pages.map((p) => p.result.content[0].text).join(''), r.content[0].text);
});

test('a big structuredContent with neither an array nor a long string is paged as JSON text', () => {
  const sc = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`key${i}`, i % 2 === 0 ? i : 'v']));
  const pages = follow({ content: [text('other')], structuredContent: sc }, { maxBytes: 1_000, maxItems: 5 });
  assert.equal(pages[0].next?.kind, 'json');
  assert.equal(pages.map((p) => p.result.content[0]?.text ?? '').join(''), JSON.stringify(sc));
});

test('a non-text block too big to send is replaced by a notice and the pages move on', () => {
  const r: ToolResultLike = { content: [{ type: 'image', data: 'A'.repeat(5_000), mimeType: 'image/png' }, text('after')] };
  const pages = follow(r, { maxBytes: 1_000, maxItems: 5 });
  assert.equal(pages.length, 2);
  assert.match(pages[0].result.content[0].text as string, /left out: a content block of type image/);
  assert.deepEqual(pages[1].result.content, [text('after')]);
});

// How fast bounding runs is the benchmark's question; what keeps it fast is measuring the answer
// a handful of times, whatever its size, and that is counted here.
test('several megabytes bound with a handful of measurements', () => {
  const rows = Array.from({ length: 40_000 }, (_, i) => ({ id: i, title: `title ${i}`, body: 'lorem ipsum dolor sit amet '.repeat(4) }));
  const r: ToolResultLike = { content: [text(JSON.stringify({ rows }))], structuredContent: { rows } };
  assert.ok(envelope(r) > 5_000_000);
  let calls = 0;
  const counting = (c: ToolResultLike) => {
    calls += 1;
    return envelope(c);
  };
  const first = boundResult(r, { maxBytes: 64_000, maxItems: 1_000 }, undefined, counting);
  const second = boundResult(r, { maxBytes: 64_000, maxItems: 1_000 }, first.next, counting);
  assert.ok(first.next && second.next);
  assert.ok(calls <= 14, `${calls} measurements`);
});

test('a long text of several megabytes bounds with a handful of measurements', () => {
  const r: ToolResultLike = { content: [text('éa"\n😀'.repeat(1_000_000))] };
  let calls = 0;
  const counting = (c: ToolResultLike) => {
    calls += 1;
    return envelope(c);
  };
  const out = boundResult(r, { maxBytes: 100_000, maxItems: 10 }, undefined, counting);
  assert.ok(envelope(out.result) <= 100_000 && envelope(out.result) > 90_000);
  assert.ok(calls <= 8, `${calls} measurements`);
});

// ---- A long string in structuredContent (the filesystem server's `{ content: text }`) ----

/** A file's text with everything JSON escapes or encodes in several bytes. */

import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { test } from 'node:test';
import type { Position } from '../../cursor/domain/position';
import { boundResult, type BoundOutcome, type Budget, dedupeResult, hasBackendCursor, type ToolResultLike } from './bounding';

/** The single-call answer the caller would send, as architecture §6 measures it. */
function envelope(candidate: ToolResultLike): number {
  return Buffer.byteLength(
    JSON.stringify({ ok: true, tool: 't', server: 's', status: 'ok', result: candidate, truncated: true, next_cursor: 'x'.repeat(200) }),
    'utf8',
  );
}

function follow(r: ToolResultLike, budget: Budget, measure = envelope): BoundOutcome[] {
  const pages: BoundOutcome[] = [];
  let from: Position | undefined;
  do {
    const page = boundResult(r, budget, from, measure);
    assert.ok(measure(page.result) <= budget.maxBytes, `page ${pages.length} over the byte budget`);
    pages.push(page);
    assert.ok(pages.length < 10_000, 'pages do not terminate');
    from = page.next;
  } while (from !== undefined);
  return pages;
}

const text = (t: string) => ({ type: 'text', text: t });

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
  assert.deepEqual(pages[0].next, { kind: 'array', path: ['data', 'rows'], index: (pages[0].result.structuredContent as { data: { rows: unknown[] } }).data.rows.length });
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
  assert.deepEqual(pages.map((p) => p.reason), ['items', 'items', 'items', undefined]);
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
  assert.deepEqual(rebuilt, blocks.map((b) => b.text));
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
  const json = pages.slice(1).map((p) => p.result.content[0].text).join('');
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
function awkwardText(units: number): string {
  const line = 'line "quoted" C:\\path\\to\\file\ttab\r\n ctrl\u0000\u0001\u001f sep\u2028 é 中 😀 𝄞 </script>\n';
  return line.repeat(Math.ceil(units / line.length)).slice(0, units - 1) + '.';
}

/** Follows string pages, checking each carries only its slice, and rebuilds the string. */
function followString(r: ToolResultLike, budget: Budget, key = 'content'): { pages: BoundOutcome[]; rebuilt: string } {
  const pages = follow(r, budget);
  let rebuilt = '';
  for (const p of pages) {
    const sc = p.result.structuredContent as Record<string, unknown>;
    assert.deepEqual(p.result.content, [], 'content blocks leave while the string is paged');
    assert.equal(typeof sc[key], 'string');
    const piece = sc[key] as string;
    assert.ok(piece.length > 0, 'every page moves on');
    rebuilt += piece;
    if (p.next) assert.deepEqual(p.next, { kind: 'string', path: [key], offset: rebuilt.length });
  }
  return { pages, rebuilt };
}

test('a file read (text block plus structuredContent.content) is paged as text, not as JSON', () => {
  const file = awkwardText(300_000);
  const raw: ToolResultLike = { content: [text(file)], structuredContent: { content: file } };
  const r = dedupeResult(raw);
  assert.deepEqual(r.content, [], 'the repeated text block is dropped first');
  const budget = { maxBytes: 16_384, maxItems: 200 };
  const { pages, rebuilt } = followString(r, budget);
  assert.equal(rebuilt, file);
  assert.ok(pages.length >= 19, `${pages.length} pages`);
  for (const p of pages) assert.deepEqual(Object.keys(p.result.structuredContent ?? {}), ['content']);
  // Pages use the budget, not a fraction of it.
  for (const p of pages.slice(0, -1)) assert.ok(envelope(p.result) > 16_384 - 40, `${envelope(p.result)} bytes`);
  assert.deepEqual([pages[0].truncated, pages[0].reason, pages[0].resumable], [true, 'bytes', true]);
  const last = pages[pages.length - 1];
  assert.deepEqual([last.truncated, last.next, last.resumable, last.reason], [false, undefined, false, undefined]);
});

test('string pages keep the other fields, and concatenate exactly at every budget', () => {
  const body = awkwardText(4_000);
  for (let maxBytes = 400; maxBytes < 1_400; maxBytes += 37) {
    const r: ToolResultLike = { content: [text('other')], structuredContent: { path: '/a/b.txt', body, size: 4_000 }, isError: false };
    const { pages, rebuilt } = followString(r, { maxBytes, maxItems: 5 }, 'body');
    assert.equal(rebuilt, body, `budget ${maxBytes}`);
    for (const p of pages) {
      const sc = p.result.structuredContent as Record<string, unknown>;
      assert.deepEqual([sc.path, sc.size, Object.keys(sc)], ['/a/b.txt', 4_000, ['path', 'body', 'size']]);
      assert.equal(p.result.isError, false);
    }
  }
});

test('a string cut never splits a surrogate pair, whatever the budget', () => {
  const long = '😀'.repeat(300);
  for (let maxBytes = 346; maxBytes < 446; maxBytes++) {
    const { pages, rebuilt } = followString({ content: [], structuredContent: { content: long } }, { maxBytes, maxItems: 5 });
    for (const p of pages) assert.equal(((p.result.structuredContent as { content: string }).content.length) % 2, 0, `budget ${maxBytes}`);
    assert.equal(rebuilt, long);
  }
});

test('resuming from a mid position gives the rest of the string from that code unit', () => {
  const file = awkwardText(20_000);
  const r: ToolResultLike = { content: [], structuredContent: { content: file } };
  const budget = { maxBytes: 2_000, maxItems: 5 };
  const from: Position = { kind: 'string', path: ['content'], offset: 7_777 };
  const out = boundResult(r, budget, from, envelope);
  const piece = (out.result.structuredContent as { content: string }).content;
  assert.ok(piece.length > 0 && file.startsWith(piece, 7_777));
  assert.deepEqual(out.next, { kind: 'string', path: ['content'], offset: 7_777 + piece.length });
  assert.deepEqual([out.truncated, out.reason], [true, 'bytes']);
  let rest = piece;
  for (let next: Position | undefined = out.next; next !== undefined; ) {
    const page = boundResult(r, budget, next, envelope);
    assert.ok(envelope(page.result) <= budget.maxBytes);
    rest += (page.result.structuredContent as { content: string }).content;
    next = page.next;
  }
  assert.equal(rest, file.slice(7_777));
});

test('resuming at or past the end of the string gives an empty final page', () => {
  const r: ToolResultLike = { content: [], structuredContent: { content: 'abc', n: 1 } };
  for (const offset of [3, 50]) {
    const out = boundResult(r, { maxBytes: 10_000, maxItems: 5 }, { kind: 'string', path: ['content'], offset }, envelope);
    const result = { content: [], structuredContent: { content: '', n: 1 } };
    assert.deepEqual(out, { result, truncated: false, resumable: false, backendCursor: false });
  }
});

test('a string that changed shape between pages gives an empty final page', () => {
  const from: Position = { kind: 'string', path: ['content'], offset: 500 };
  const shapes: ToolResultLike[] = [
    { content: [text('x')], structuredContent: { content: ['now', 'an', 'array'] } },
    { content: [text('x')], structuredContent: { content: 42 } },
    { content: [text('x')], structuredContent: { other: 'y'.repeat(5_000) } },
    { content: [text('x')], structuredContent: { content: { nested: 'y' } } },
    { content: [text('x'.repeat(5_000))], isError: false },
  ];
  for (const r of shapes) {
    const out = boundResult(r, { maxBytes: 1_000, maxItems: 5 }, from, envelope);
    const expected = { ...r, content: [] };
    delete expected.structuredContent;
    assert.deepEqual(out, { result: expected, truncated: false, resumable: false, backendCursor: false });
  }
  // A path through a string: resolving `['a', 'b']` must not read into the string 'a'.
  const intoString: Position = { kind: 'string', path: ['a', 'length'], offset: 0 };
  const through = boundResult({ content: [], structuredContent: { a: 'long text' } }, { maxBytes: 1_000, maxItems: 5 }, intoString, envelope);
  assert.deepEqual([through.result, through.next], [{ content: [] }, undefined]);
});

test('of the largest array and the largest string, the larger is cut', () => {
  const rows = Array.from({ length: 40 }, (_, i) => ({ id: i }));
  const bigString = { content: [], structuredContent: { rows, body: 'b'.repeat(3_000) } };
  const first = boundResult(bigString, { maxBytes: 1_500, maxItems: 50 }, undefined, envelope);
  assert.deepEqual(first.next, { kind: 'string', path: ['body'], offset: (first.result.structuredContent as { body: string }).body.length });
  assert.deepEqual((first.result.structuredContent as { rows: unknown[] }).rows, rows);
  // Escaping counts: 600 quotes serialize to 1 202 bytes, more than the 40 rows' 361.
  const quotes = { content: [], structuredContent: { rows, body: '"'.repeat(600) } };
  const escaped = boundResult(quotes, { maxBytes: 1_000, maxItems: 50 }, undefined, envelope);
  assert.equal(escaped.next?.kind, 'string');
  const bigArray = { content: [], structuredContent: { rows: Array.from({ length: 300 }, (_, i) => ({ id: i })), body: 'b'.repeat(500) } };
  assert.deepEqual(boundResult(bigArray, { maxBytes: 1_500, maxItems: 500 }, undefined, envelope).next?.kind, 'array');
});

test('an array over the item limit is cut even when a string is larger', () => {
  const r: ToolResultLike = { content: [], structuredContent: { tags: [1, 2, 3, 4], body: 'b'.repeat(5_000) } };
  const out = boundResult(r, { maxBytes: 100_000, maxItems: 3 }, undefined, envelope);
  assert.deepEqual([out.next, out.reason], [{ kind: 'array', path: ['tags'], index: 3 }, 'items']);
});

test('when not one element of the larger array fits, its string partner is cut instead', () => {
  const sc = { rows: ['x'.repeat(3_000), 1, 2], body: 'y'.repeat(2_000) };
  const budget = { maxBytes: 4_500, maxItems: 5 };
  const { pages, rebuilt } = followString({ content: [], structuredContent: sc }, budget, 'body');
  assert.equal(rebuilt, sc.body);
  for (const p of pages) assert.deepEqual((p.result.structuredContent as { rows: unknown[] }).rows, sc.rows);
});

test('a string that cannot fit beside the rest of structuredContent falls back to JSON text', () => {
  const sc = { head: 'h'.repeat(900), content: 'c'.repeat(2_000) };
  const pages = follow({ content: [], structuredContent: sc }, { maxBytes: 1_000, maxItems: 5 });
  assert.equal(pages[0].next?.kind, 'json');
  assert.equal(pages.map((p) => p.result.content[0]?.text ?? '').join(''), JSON.stringify(sc));
});

test('a string page met by a smaller budget continues as JSON text from that very code unit', () => {
  const sc = { head: 'h"'.repeat(300), content: awkwardText(5_000) };
  const r: ToolResultLike = { content: [], structuredContent: sc };
  const first = boundResult(r, { maxBytes: 3_000, maxItems: 5 }, undefined, envelope);
  assert.equal(first.next?.kind, 'string');
  const piece = (first.result.structuredContent as { content: string }).content;
  // Now not even one code unit fits beside `head`: the rest comes as JSON text.
  assert.equal(boundResult(r, { maxBytes: 900, maxItems: 5 }, undefined, envelope).next?.kind, 'json');
  const pages: BoundOutcome[] = [];
  for (let next: Position | undefined = first.next; next !== undefined; ) {
    const page = boundResult(r, { maxBytes: 900, maxItems: 5 }, next, envelope);
    assert.ok(envelope(page.result) <= 900);
    assert.equal(page.result.structuredContent, undefined);
    pages.push(page);
    next = page.next;
  }
  assert.equal(pages[0].next?.kind, 'json');
  const json = pages.map((p) => p.result.content[0]?.text ?? '').join('');
  assert.equal(JSON.stringify({ ...sc, content: piece }).slice(0, -2) + json, JSON.stringify(sc));
});

test('a backend pagination token is never the string cut, even when it is the largest', () => {
  const sc = { nextCursor: 'N'.repeat(900), body: 'b'.repeat(800) };
  const out = boundResult({ content: [], structuredContent: sc }, { maxBytes: 1_500, maxItems: 5 }, undefined, envelope);
  const page = out.result.structuredContent as { nextCursor: string; body: string };
  assert.equal(page.nextCursor, sc.nextCursor);
  assert.ok(page.body.length > 0 && sc.body.startsWith(page.body) && page.body.length < sc.body.length);
  assert.deepEqual([out.truncated, out.next, out.resumable, out.backendCursor], [true, undefined, false, true]);
});

test('a 300 KB string bounds with a handful of measurements a page', () => {
  const file = awkwardText(300_000);
  const r: ToolResultLike = { content: [], structuredContent: { content: file } };
  let calls = 0;
  const counting = (c: ToolResultLike) => {
    calls += 1;
    return envelope(c);
  };
  const first = boundResult(r, { maxBytes: 64_000, maxItems: 100 }, undefined, counting);
  const second = boundResult(r, { maxBytes: 64_000, maxItems: 100 }, first.next, counting);
  assert.equal(second.next?.kind, 'string');
  assert.ok(calls <= 16, `${calls} measurements`);
});

test('a string under a path too long for a cursor is left to the JSON fallback', () => {
  let deep: Record<string, unknown> = { body: 'x'.repeat(30_000) };
  for (let i = 0; i < 16; i++) deep = { [`k${i}`]: deep };
  // 400 characters, but 1 202 bytes of UTF-8: over the 1 KiB a cursor path may take.
  const wide = { ['中'.repeat(400)]: 'x'.repeat(30_000) };
  for (const sc of [deep, wide]) {
    const out = boundResult({ content: [], structuredContent: sc }, { maxBytes: 10_000, maxItems: 5 }, undefined, envelope);
    assert.equal(out.next?.kind, 'json');
  }
  const fine = { ['中'.repeat(300)]: 'x'.repeat(30_000) };
  const out = boundResult({ content: [], structuredContent: fine }, { maxBytes: 10_000, maxItems: 5 }, undefined, envelope);
  assert.equal(out.next?.kind, 'string');
});

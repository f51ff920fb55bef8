import assert from 'node:assert/strict';
import { test } from 'node:test';
import { envelope, follow, text } from '../../../test/support/bounding-pages';
import type { Position } from '../../cursor/domain/position';
import { boundResult, type BoundOutcome, type Budget, dedupeResult, type ToolResultLike } from './bounding';

/** Bounding where the cut falls inside one long string: pages by code unit, resumable, never splitting a pair. */
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
    for (const p of pages) assert.equal((p.result.structuredContent as { content: string }).content.length % 2, 0, `budget ${maxBytes}`);
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
  for (let next: Position | undefined = out.next; next !== undefined;) {
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
  for (let next: Position | undefined = first.next; next !== undefined;) {
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

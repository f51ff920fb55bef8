import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Position } from '../../cursor/domain/position';
import { boundResult, type BoundOutcome, type Budget, type ContentBlock, dedupeResult, type ToolResultLike } from './bounding';

// Seeded and bounded: the same cases on every run, in well under the 10 s this suite may take.
const RUNS = { seed: 20_260_831, numRuns: 250 };

function envelope(candidate: ToolResultLike): number {
  return Buffer.byteLength(
    JSON.stringify({ ok: true, tool: 't', server: 's', status: 'ok', result: candidate, truncated: true, next_cursor: 'x'.repeat(200) }),
    'utf8',
  );
}

const budgetArb: fc.Arbitrary<Budget> = fc.record({
  maxBytes: fc.oneof(fc.integer({ min: 360, max: 1_000 }), fc.integer({ min: 1_000, max: 40_000 })),
  maxItems: fc.integer({ min: 1, max: 50 }),
});

// Characters that JSON escapes or encodes in several bytes, surrogate pairs and lone halves.
const awkward = fc.constantFrom('"', '\\', '\n', '\t', '\u0000', '\u001f', '\u2028', 'é', '中', '😀', '𝄞', '\ud800', '\udc00');
const unit = fc.oneof(awkward, fc.constantFrom('a', 'b', ' ', '{', '}'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
// size 'max': lengths spread up to maxLength, where the default bias keeps strings tiny.
const textArb = (maxLength: number) => fc.string({ unit, maxLength, size: 'max' });

/** Follows `next` from the first page to the last, checking what holds for every page. */
function pagesOf(r: ToolResultLike, budget: Budget, bound: number): BoundOutcome[] {
  const pages: BoundOutcome[] = [];
  let from: Position | undefined;
  do {
    const page = boundResult(r, budget, from, envelope);
    assert.ok(envelope(page.result) <= budget.maxBytes, 'page over the byte budget');
    assert.ok(page.result.content.length <= budget.maxItems, 'page over the item budget');
    const items = (page.result.structuredContent as { items?: unknown[] } | undefined)?.items;
    assert.ok((items?.length ?? 0) <= budget.maxItems, 'array page over the item budget');
    assert.equal(page.truncated || page.next !== undefined, page.truncated, 'a page with a next is truncated');
    pages.push(page);
    assert.ok(pages.length <= bound, 'pages do not terminate');
    from = page.next;
  } while (from !== undefined);
  return pages;
}

test('array pages, then any JSON fallback, rebuild structuredContent exactly', () => {
  const scArb = fc.record({ items: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 60, size: 'max' }), total: fc.integer() }, { requiredKeys: ['items'] });
  fc.assert(
    fc.property(scArb, fc.boolean(), budgetArb, (sc, withCopy, budget) => {
      const json = JSON.stringify(sc);
      const r: ToolResultLike = { content: withCopy ? [{ type: 'text', text: json }] : [], structuredContent: sc };
      const pages = pagesOf(r, budget, json.length + 2);
      const elements: unknown[] = [];
      let text = '';
      for (const p of pages) {
        const part = p.result.structuredContent as { items: unknown[] } | undefined;
        if (part) {
          assert.equal(text, '', 'no array page after the JSON fallback began');
          elements.push(...part.items);
        } else {
          text += p.result.content.map((b) => b.text).join('');
        }
      }
      assert.deepEqual(elements, sc.items.slice(0, elements.length));
      if (text === '') assert.equal(elements.length, sc.items.length);
      else if (elements.length === 0) assert.equal(text, json);
      else
        assert.equal(
          `{"items":[${sc.items
            .slice(0, elements.length)
            .map((v) => JSON.stringify(v))
            .join(',')},${text}`,
          json,
        );
    }),
    RUNS,
  );
});

test('content pages rebuild every text block exactly, split blocks included', () => {
  const contentArb = fc.oneof(
    fc.array(textArb(300), { minLength: 1, maxLength: 12 }),
    textArb(3_000).map((t) => [t]),
  );
  fc.assert(
    fc.property(contentArb, budgetArb, (texts, budget) => {
      const content: ContentBlock[] = texts.map((t) => ({ type: 'text', text: t }));
      const units = texts.reduce((n, t) => n + t.length + 1, 0);
      const pages = pagesOf({ content, isError: false }, budget, units + 2);
      const rebuilt: string[] = [];
      let continuing = false;
      for (const p of pages) {
        assert.equal(p.result.isError, false);
        p.result.content.forEach((b, i) => {
          if (i === 0 && continuing) rebuilt[rebuilt.length - 1] += b.text;
          else rebuilt.push(b.text as string);
        });
        continuing = p.next?.kind === 'content' && p.next.offset > 0;
      }
      assert.deepEqual(rebuilt, texts);
    }),
    RUNS,
  );
});

/**
 * Follows pages of a structuredContent whose last key `content` holds a long string, and checks
 * the string pages (other fields kept, offsets exactly where the previous piece ended) and any
 * JSON text after them rebuild it: no gap, no overlap.
 */
function checkStringPages(sc: Record<string, unknown>, pages: BoundOutcome[]): void {
  const long = sc.content as string;
  let piece = '';
  let json = '';
  for (const p of pages) {
    const part = p.result.structuredContent;
    if (part) {
      assert.equal(json, '', 'no string page after the JSON fallback began');
      assert.deepEqual(p.result.content, []);
      assert.deepEqual({ ...part, content: '' }, { ...sc, content: '' }, 'the other fields ride along');
      const slice = part.content as string;
      assert.ok(slice.length > 0 || pages.length === 1, 'a page moves on');
      piece += slice;
      if (p.next?.kind === 'string') assert.deepEqual(p.next, { kind: 'string', path: ['content'], offset: piece.length });
    } else {
      json += p.result.content.map((b) => b.text).join('');
    }
  }
  if (json === '') assert.equal(piece, long);
  else if (piece === '') assert.equal(json, JSON.stringify(sc));
  else assert.equal(JSON.stringify({ ...sc, content: piece }).slice(0, -2) + json, JSON.stringify(sc));
}

test('a long string in structuredContent pages into pieces that rebuild it exactly', () => {
  const longArb = fc.oneof(textArb(6_000), fc.string({ unit, minLength: 6_000, maxLength: 12_000 }));
  fc.assert(
    fc.property(longArb, fc.boolean(), budgetArb, (long, withCopy, budget) => {
      const sc = { content: long };
      // The filesystem server's shape; the router drops the repeated text block first.
      const r = dedupeResult({ content: withCopy ? [{ type: 'text', text: long }] : [], structuredContent: sc });
      assert.deepEqual(r.content, []);
      const pages = pagesOf(r, budget, long.length + 2);
      checkStringPages(sc, pages);
      assert.equal(pages[pages.length - 1].next, undefined);
    }),
    RUNS,
  );
});

test('a long string beside a small field pages the same way, the field on every page', () => {
  const smallArb = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.string({ maxLength: 8 }));
  fc.assert(
    fc.property(smallArb, textArb(6_000), budgetArb, (small, long, budget) => {
      fc.pre(long.length > 20);
      const sc = { path: small, content: long };
      const pages = pagesOf({ content: [], structuredContent: sc }, budget, long.length + JSON.stringify(sc).length + 2);
      checkStringPages(sc, pages);
    }),
    RUNS,
  );
});

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import fc from 'fast-check';
import { CALL_STATUSES, type CallStatus } from '../../common/call-status';
import { dedupeResult, type ToolResultLike } from './bounding';
import { byteLength, draftItem, finishBatch, itemFootprint, skeletonSizes, utf8Bytes, type BatchItem, type ItemDraft } from './batch-response';
import type { CursorIssuer } from './bound-answer';
import type { ReadAnswer } from './read-answer';

/** A `tools/call` result as it goes out on the wire. */
type SentWire = { structuredContent: unknown; isError: boolean; content: { type: string; text?: string }[] };

/** The longest `server` an answer can carry: backend names are at most 63 characters (architecture §3). */
const MAX_SERVER_CHARS = 63;

/**
 * architecture §5 as a property: for random batches and budgets, the whole serialized result (structured
 * content and the content blocks a model reads) is within the budget, has one item per call in
 * order, and its counts and failure lists agree with the statuses. Drives the same pure pieces the
 * BatchService composes.
 */

const issuer: CursorIssuer = { issue: (p) => 'c1.' + Buffer.from(JSON.stringify(p)).toString('base64url') + '.' + 's'.repeat(43), ttlSeconds: 900 };
const tooLarge = (): ReadAnswer => ({ tool: 't', server: 's', status: 'error', error: 'the result cannot be cut to fit the response budget' });

const text = (max: number) => fc.string({ unit: fc.constantFrom('a', 'é', '✓', '"', '\\', '\n', '\u0001', '😀', ' ', 'z'), maxLength: max });
/** Text of up to `max` code units, built from a random seed so sizes reach the budgets. */
const longText = (max: number) =>
  fc.tuple(text(40), fc.noBias(fc.integer({ min: 0, max }))).map(([seed, n]) => (seed || 'a').repeat(Math.ceil(n / (seed.length || 1))).slice(0, n));
const result: fc.Arbitrary<ToolResultLike> = fc.oneof(
  longText(200_000).map((t): ToolResultLike => ({ content: [{ type: 'text', text: t }], structuredContent: { content: t } })),
  fc.tuple(fc.array(fc.record({ name: text(40), size: fc.nat() }), { maxLength: 20 }), fc.integer({ min: 0, max: 4000 })).map(([items, n]): ToolResultLike => ({
    content: [],
    structuredContent: { items: Array.from({ length: n }, (_, i) => items[i % Math.max(1, items.length)] ?? i) },
  })),
  fc.array(longText(20_000), { maxLength: 40 }).map((blocks): ToolResultLike => ({ content: blocks.map((t) => ({ type: 'text', text: t })) })),
  fc.constant<ToolResultLike>({ content: [] }),
);
const entry = fc.record({
  id: fc.option(fc.string({ unit: fc.constantFrom('a', 'b', '"', '✓', '\\', '9'), minLength: 1, maxLength: 100 }), { nil: undefined }),
  name: fc.string({ unit: fc.constantFrom('r', 'e', 'a', 'd', '_', '"', 'é'), minLength: 1, maxLength: 200 }),
  // Mostly successes, so that results fill the budget, with every other status mixed in.
  status: fc.oneof({ arbitrary: fc.constant<CallStatus>('ok'), weight: 4 }, { arbitrary: fc.constantFrom<CallStatus>(...CALL_STATUSES), weight: 2 }),
  result,
  error: text(500),
});

let largestRatio = 0;
after(() => console.log(`batch property: largest answer ${(largestRatio * 100).toFixed(2)}% of its budget`));

test('every batch answer is within budget, complete, ordered and consistent', () => {
  fc.assert(
    fc.property(fc.array(entry, { minLength: 1, maxLength: 25, size: 'max' }), fc.integer({ min: 65_536, max: 300_000 }), (raw, budget) => {
      const entries = raw.map((e, index) => ({ ...e, index, id: e.id === undefined ? `${index}+${index}` : `${e.id}#${index}` }));
      const skeleton = skeletonSizes(entries, MAX_SERVER_CHARS);
      const share = Math.floor((budget - skeleton.total) / entries.length);
      const drafts: ItemDraft[] = entries.map((e) => {
        const base = { tool: e.name, server: 'files', status: e.status };
        if (e.status !== 'ok') return { item: { index: e.index, id: e.id, ...base, error: e.error } };
        const itemBudget = { maxBytes: skeleton.items[e.index] + share, maxItems: 200 };
        return draftItem(e, { base, result: dedupeResult(e.result) }, itemBudget, issuer, tooLarge);
      });
      const { response, json, wire, itemBytes } = finishBatch(drafts, budget);
      // The JSON put together from the items' JSON is the answer's own serialization.
      assert.equal(json, JSON.stringify(response));
      const sent = JSON.parse(wire) as SentWire;
      assert.equal(JSON.stringify(sent.structuredContent), json);
      assert.equal(sent.isError, false);
      assertReadable(sent.content, response);
      const size = utf8Bytes(wire);
      largestRatio = Math.max(largestRatio, size / budget);
      assert.ok(size <= budget, `${size} > ${budget}`);
      assert.ok(itemBytes.reduce((a, b) => a + b, 0) <= size);
      assert.equal(response.results.length, entries.length);
      response.results.forEach((item, i) => {
        assert.equal(item.index, i);
        assert.equal(item.id, entries[i].id);
        assert.ok(!(item.result !== undefined && item.error !== undefined), 'never both result and error');
        assert.ok((item.error ?? '').length <= 500);
      });
      const failed = response.results.filter((r) => r.status !== 'ok');
      assert.deepEqual(
        response.failed_ids,
        failed.map((r) => r.id),
      );
      assert.deepEqual(
        response.failed_indexes,
        failed.map((r) => r.index),
      );
      assert.deepEqual(response.counts, { total: entries.length, succeeded: entries.length - failed.length, failed: failed.length });
      assert.equal(response.ok, failed.length === 0);
      assert.equal(
        response.truncated,
        response.results.some((r) => r.truncated === true),
      );
    }),
    { numRuns: 60, seed: 20261130 },
  );
});

test('25 ids of 100 characters, 25 huge results at the smallest budget still fit, no item dropped', () => {
  const huge = 'x"\\'.repeat(100_000);
  const entries = Array.from({ length: 25 }, (_, index) => ({ index, id: `${'i'.repeat(97)}${String(index).padStart(3, '0')}`, name: 'n'.repeat(200) }));
  const budget = 65_536;
  const skeleton = skeletonSizes(entries, MAX_SERVER_CHARS);
  const share = Math.floor((budget - skeleton.total) / entries.length);
  const drafts = entries.map((e) =>
    draftItem(
      e,
      { base: { tool: e.name, server: 'files', status: 'ok' }, result: { content: [], structuredContent: { content: huge } } },
      { maxBytes: skeleton.items[e.index] + share, maxItems: 200 },
      issuer,
      tooLarge,
    ),
  );
  const { response, json, wire } = finishBatch(drafts, budget);
  assert.equal(json, JSON.stringify(response));
  assert.ok(utf8Bytes(wire) <= budget, `${utf8Bytes(wire)}`);
  assertReadable((JSON.parse(wire) as SentWire).content, response);
  assert.equal(response.results.length, 25);
  assert.ok(response.results.every((r) => r.status === 'ok' && r.truncated === true && typeof r.next_cursor === 'string'));
  assert.equal(response.truncated, true);
});

test('25 long, heavily escaped errors are shortened only as a last resort', () => {
  const entries = Array.from({ length: 25 }, (_, index) => ({ index, id: String(index), name: 't' }));
  const error = '\u0001'.repeat(500); // 3,000 bytes each once JSON-escaped
  const drafts: ItemDraft[] = entries.map((e) => ({ item: { index: e.index, id: e.id, tool: 't', server: null, status: 'error', error } }));
  const roomy = finishBatch(drafts, 300_000).response;
  assert.equal(roomy.truncated, false);
  const { response: tight, json, wire } = finishBatch(drafts, 65_536);
  assert.equal(json, JSON.stringify(tight));
  assert.ok(utf8Bytes(wire) <= 65_536);
  assert.equal(tight.results.length, 25);
  assert.equal(tight.truncated, true);
});

/**
 * What a model reads of a batch: a summary block that parses to the answer without results, then
 * one header per entry naming its index and id, each followed by that entry's blocks.
 */
function assertReadable(content: { type: string; text?: string }[], response: { results: BatchItem[] }): void {
  const summary = JSON.parse(content[0].text as string) as { results: unknown };
  assert.equal(JSON.stringify(summary.results), JSON.stringify(response.results.map(({ result: _r, ...head }) => head)));
  const headers = content.map((b, i) => ({ b, i })).filter(({ b }) => b.type === 'text' && /^── entry \d+, id /.test(b.text ?? ''));
  assert.equal(headers.length, response.results.length);
  headers.forEach(({ b }, k) => {
    const { id, status, error } = response.results[k];
    const message = error !== undefined && error !== '' ? `: ${error.replace(/\s*[\r\n]+\s*/g, ' ')}` : '';
    assert.equal(b.text, `── entry ${k}, id ${JSON.stringify(id)}: ${status}${message} ──`);
  });
}

test("the skeleton's sizes are those of its serialization", () => {
  const entries = [
    { index: 0, id: '0', name: 'read' },
    { index: 1, id: 'é"\\\u0001😀', name: 'n'.repeat(200) },
  ];
  const items: BatchItem[] = entries.map((e) => ({
    index: e.index,
    id: e.id,
    tool: e.name,
    server: 'x'.repeat(MAX_SERVER_CHARS),
    status: 'invalid_cursor',
    result: { content: [] },
  }));
  const sizes = skeletonSizes(entries, MAX_SERVER_CHARS);
  assert.deepEqual(
    sizes.items,
    items.map((item) => itemFootprint(item, JSON.stringify(item))),
  );
  const whole = finishBatch(
    items.map((item) => ({ item })),
    Number.MAX_SAFE_INTEGER,
  );
  assert.equal(whole.response.ok, false);
  assert.equal(sizes.total, utf8Bytes(whole.wire));
  assert.ok(
    sizes.items.every((n, i) => n > byteLength(items[i])),
    'an item costs more than its JSON: the model reads it too',
  );
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ToolResultLike } from './bounding';
import type { ReadAnswer } from './read-answer';
import { itemFootprint, itemShape } from './batch-response';
import { boundAnswer, reservedTailBytes, type AnswerShape, type Bounded, type CursorIssuer } from './bound-answer';
import { modelBlocks } from './model-content';
import { SINGLE_SHAPE, singleWire } from './single-answer';

const issuer: CursorIssuer = { issue: (p) => `c1.${Buffer.from(JSON.stringify(p)).toString('base64url')}`, ttlSeconds: 900 };
const item = { index: 3, id: 'é"\\' };
const shapes: Record<string, AnswerShape> = { single: SINGLE_SHAPE, item: itemShape(item) };
const results: Record<string, ToolResultLike> = {
  small: { content: [{ type: 'text', text: 'ok' }], structuredContent: { ok: true } },
  items: { content: [], structuredContent: { rows: Array.from({ length: 500 }, (_, i) => ({ i, s: 'é✓😀"\\\u0001' })) } },
  text: { content: [{ type: 'text', text: 'é✓😀"\\\n'.repeat(3000) }] },
  string: { content: [], structuredContent: { body: 'x"'.repeat(20_000) } },
  image: {
    content: [
      { type: 'image', data: 'A'.repeat(30_000), mimeType: 'image/png' },
      { type: 'text', text: 'a picture' },
    ],
  },
  backendCursor: { content: [], structuredContent: { rows: Array.from({ length: 500 }, (_, i) => i), nextCursor: 'b2' } },
};

/** Bytes the answer takes on the wire: the whole result for the single call, the item's footprint in a batch. */
function wireBytes(shapeName: string, bounded: Bounded): number {
  assert.deepEqual(
    bounded.blockJsons,
    modelBlocks(bounded.value.result, bounded.value.server).map((b) => JSON.stringify(b)),
  );
  if (shapeName === 'single') return Buffer.byteLength(singleWire(bounded));
  return itemFootprint({ ...item, ...bounded.value }, bounded.json);
}

/** The envelope of an answer without its result, as JSON: what `Bounded.headJson` must be. */
function headJsonOf(shape: AnswerShape, answer: ReadAnswer): string {
  const { result: _result, ...head } = shape.envelope(answer) as Record<string, unknown>;
  return JSON.stringify(head);
}

test("the reserved cut's bytes are those of the fields it reserves room for, hint or none", () => {
  for (const [maxBytes, maxItems] of [
    [0, 0],
    [4096, 200],
    [300_000, 1],
    [123_456_789, 99_999],
  ]) {
    for (const resumeHint of [undefined, 'call "it" again ✓']) {
      const fields = {
        truncated: true,
        bounds: { reason: 'bytes', item_limit: maxItems, byte_limit: maxBytes, resumable: true },
        next_cursor: '',
        cursor_expires_in_seconds: 0,
        ...(resumeHint === undefined ? {} : { resume: resumeHint }),
      };
      assert.equal(reservedTailBytes({ maxBytes, maxItems }, resumeHint), Buffer.byteLength(`,${JSON.stringify(fields).slice(1)}`));
    }
  }
});

test("the single call's wire is the same whether or not bounding handed on its head's JSON", () => {
  for (const [resultName, result] of Object.entries(results)) {
    for (const maxBytes of [4096, 200_000]) {
      for (const cursors of [issuer, { ...issuer, resumeHint: 'resume "here"' }, undefined]) {
        const bounded = boundAnswer({ base: { tool: 'read "it"', server: 'files', status: 'ok' }, result }, { maxBytes, maxItems: 50 }, SINGLE_SHAPE, cursors);
        assert.ok(bounded, resultName);
        const { headJson: _headJson, ...without } = bounded;
        assert.equal(singleWire(bounded), singleWire(without), `${resultName} ${maxBytes}`);
      }
    }
  }
});

test("an answer comes with its envelope's JSON, and all it sends is within the budget", () => {
  for (const [shapeName, shape] of Object.entries(shapes)) {
    for (const [resultName, result] of Object.entries(results)) {
      for (const budget of [
        { maxBytes: 4096, maxItems: 200 },
        { maxBytes: 200_000, maxItems: 50 },
        { maxBytes: 200_000, maxItems: 1000 },
      ]) {
        const base: ReadAnswer = { tool: 'read "it"', server: 'files', status: 'ok' };
        const bounded = boundAnswer({ base, result }, budget, shape, issuer);
        const what = `${shapeName} ${resultName} ${budget.maxBytes}/${budget.maxItems}`;
        assert.ok(bounded, what);
        assert.equal(bounded.json, JSON.stringify(shape.envelope(bounded.value)), what);
        assert.equal(bounded.headJson, headJsonOf(shape, bounded.value), what);
        assert.ok(wireBytes(shapeName, bounded) <= budget.maxBytes, what);
        if (bounded.value.next_cursor !== undefined) {
          const position = JSON.parse(Buffer.from(bounded.value.next_cursor.slice(3), 'base64url').toString()) as never;
          const next = boundAnswer({ base, result, from: position }, budget, shape, issuer);
          assert.ok(next, what);
          assert.equal(next.json, JSON.stringify(shape.envelope(next.value)), `${what}, resumed`);
          assert.ok(wireBytes(shapeName, next) <= budget.maxBytes, `${what}, resumed`);
        }
      }
    }
  }
});

test("the single call's wire is its envelope block, the backend's blocks, and the envelope as structured content", () => {
  const base: ReadAnswer = { tool: 'read_text_file', server: 'files', status: 'ok' };
  const text = 'line "one"\nline two\n'.repeat(500);
  const bounded = boundAnswer({ base, result: { content: [], structuredContent: { content: text } } }, { maxBytes: 8192, maxItems: 200 }, SINGLE_SHAPE, issuer);
  assert.ok(bounded);
  const wire = JSON.parse(singleWire(bounded)) as { structuredContent: unknown; isError: boolean; content: { type: string; text: string }[] };
  assert.deepEqual(wire.structuredContent, JSON.parse(bounded.json));
  assert.equal(wire.isError, false);
  const head = JSON.parse(wire.content[0].text) as Record<string, unknown>;
  assert.deepEqual(Object.keys(head), ['ok', 'tool', 'server', 'status', 'truncated', 'bounds', 'next_cursor', 'cursor_expires_in_seconds']);
  assert.equal(head.next_cursor, bounded.value.next_cursor);
  assert.equal(wire.content.length, 2);
  assert.ok(text.startsWith(wire.content[1].text), "the page is the file's text itself, unescaped");
  assert.ok(wire.content[1].text.length > 1000);
});

test('without an issuer a cut carries no cursor and says it cannot be resumed', () => {
  const base: ReadAnswer = { tool: 'write_file', server: 'files', status: 'ok' };
  const bounded = boundAnswer({ base, result: results.items }, { maxBytes: 4096, maxItems: 200 }, SINGLE_SHAPE, undefined);
  assert.ok(bounded);
  assert.equal(bounded.value.truncated, true);
  assert.equal(bounded.value.next_cursor, undefined);
  assert.equal(bounded.value.bounds?.resumable, false);
  assert.ok(Buffer.byteLength(singleWire(bounded)) <= 4096);
});

test('a resume hint goes beside the cursor of a cut answer, within the budget, and nowhere else', () => {
  const hint = 'Call invoke_read_tool with name "read \\"it\\"", server "files", the same arguments and `cursor` set to next_cursor.';
  const withHint: CursorIssuer = { ...issuer, resumeHint: hint };
  const base: ReadAnswer = { tool: 'read "it"', server: 'files', status: 'ok' };
  for (const [resultName, result] of Object.entries(results)) {
    for (const maxBytes of [4096, 20_000]) {
      const bounded = boundAnswer({ base, result }, { maxBytes, maxItems: 200 }, SINGLE_SHAPE, withHint);
      assert.ok(bounded, resultName);
      assert.ok(Buffer.byteLength(singleWire(bounded)) <= maxBytes, `${resultName} ${maxBytes}`);
      assert.equal(bounded.value.resume, bounded.value.next_cursor === undefined ? undefined : hint, resultName);
    }
  }
  const small = boundAnswer({ base, result: results.small }, { maxBytes: 4096, maxItems: 200 }, SINGLE_SHAPE, withHint);
  assert.equal(small?.value.truncated, undefined);
  assert.equal(small?.value.resume, undefined);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CursorIssuer } from './bound-answer';
import type { ToolResultLike } from './bounding';
import { modelBlocks, textBlock } from './model-content';
import type { ReadAnswer } from './read-answer';
import { boundSingle, failedSingle, failureWire, SINGLE_SHAPE, singleFailure, singleWire } from './single-answer';

const issuer: CursorIssuer = { issue: () => 'c1.next', ttlSeconds: 900 };
const base: ReadAnswer = { tool: 'read_file', server: 'files', status: 'ok' };
const budget = { maxBytes: 200_000, maxItems: 200 };

test('the envelope puts `ok` first, true only for status ok', () => {
  assert.deepEqual(SINGLE_SHAPE.envelope(base), { ok: true, ...base });
  assert.deepEqual(SINGLE_SHAPE.envelope({ ...base, status: 'blocked' }), { ok: false, ...base, status: 'blocked' });
});

test('a failure carries the router error shape, {code, message}, and is the whole text of an isError result', () => {
  const answer: ReadAnswer = { tool: 'x', server: null, status: 'error', error: 'rate limit: no token within 10 ms' };
  const failure = singleFailure(answer, 'rate_limited');
  assert.deepEqual(failure.value, {
    ok: false,
    tool: 'x',
    server: null,
    status: 'error',
    error: { code: 'rate_limited', message: 'rate limit: no token within 10 ms' },
  });
  assert.equal(failure.json, JSON.stringify(failure.value));
  const wire = JSON.parse(failureWire(failure)) as unknown;
  assert.deepEqual(wire, { content: [textBlock(failure.json)], structuredContent: failure.value, isError: true });
  assert.deepEqual(failedSingle(answer, 'rate_limited'), { answer, wire: failureWire(failure) });
});

test('a bounded answer goes out as its head block (no result), then the result blocks, isError false', () => {
  const result: ToolResultLike = { content: [{ type: 'text', text: 'hello' }], structuredContent: { text: 'hello' } };
  const single = boundSingle({ base, result }, budget, issuer);
  const expected = {
    content: [textBlock(JSON.stringify({ ok: true, ...base })), ...modelBlocks(result, 'files')],
    structuredContent: { ok: true, ...base, result },
    isError: false,
  };
  assert.equal(single.wire, JSON.stringify(expected));
  assert.deepEqual(single.answer, { ...base, result });
});

test('singleWire reuses the JSON bounding measured', () => {
  const json = '{"ok":true,"tool":"t","server":"s","status":"ok","result":{"content":[]}}';
  const wire = singleWire({ value: { tool: 't', server: 's', status: 'ok', result: { content: [] } }, json, blockJsons: [] });
  assert.equal(
    wire,
    `{"content":[${JSON.stringify(textBlock('{"ok":true,"tool":"t","server":"s","status":"ok"}'))}],"structuredContent":${json},"isError":false}`,
  );
});

test('a cut answer carries a cursor only when cursors are issued (never for a write)', () => {
  const result: ToolResultLike = { content: [], structuredContent: { rows: Array.from({ length: 500 }, (_, i) => i) } };
  const read = boundSingle({ base, result }, { maxBytes: 200_000, maxItems: 10 }, issuer);
  assert.equal(read.answer.truncated, true);
  assert.equal(read.answer.next_cursor, 'c1.next');
  assert.equal(read.answer.bounds?.resumable, true);
  const write = boundSingle({ base, result }, { maxBytes: 200_000, maxItems: 10 }, undefined);
  assert.equal(write.answer.truncated, true);
  assert.equal(write.answer.next_cursor, undefined);
  assert.equal(write.answer.bounds?.resumable, false);
});

test('a page that fits no budget answers response_too_large', () => {
  const result: ToolResultLike = { content: [{ type: 'image', data: 'A'.repeat(10_000), mimeType: 'image/png' }] };
  const single = boundSingle({ base, result }, { maxBytes: 100, maxItems: 200 }, issuer);
  assert.deepEqual(single.answer, { tool: 'read_file', server: 'files', status: 'error', error: 'the result cannot be cut to fit the response budget' });
  assert.equal((JSON.parse(single.wire) as { isError: boolean }).isError, true);
  assert.match(single.wire, /"code":"response_too_large"/);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resultMessageJson } from './jsonrpc';
import { findToolResult, refusal, refusalResult } from './tool-result';

test("a refusal is one shape, isError, its text block the whole answer; byte for byte the object's serialization", () => {
  const value = refusal('duplicate_id', 'ids must be unique: quote " backslash \\ é ✓ 😀 \u2028 \u0001');
  assert.deepEqual(value, { ok: false, status: 'invalid_call', error: { code: 'duplicate_id', message: value.error.message } });
  assert.equal(refusal('unknown_tool', 'x').status, 'unknown_tool');
  const expected = { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value, isError: true };
  assert.equal(refusalResult(value), JSON.stringify(expected));
  for (const id of [0, 42, -7, 'r-1', 'é"\\']) {
    assert.equal(resultMessageJson(id, refusalResult(value)), JSON.stringify({ jsonrpc: '2.0', id, result: expected }));
  }
});

test("find_tool's answer is its structured content and one compact JSON text block", () => {
  const answer = { hits: [], note: 'no tools are available to you: the catalog holds no tool you may call' };
  assert.deepEqual(JSON.parse(findToolResult(answer)), {
    content: [{ type: 'text', text: JSON.stringify(answer) }],
    structuredContent: answer,
    isError: false,
  });
});

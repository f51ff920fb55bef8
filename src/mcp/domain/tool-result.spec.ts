import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resultMessageJson } from './jsonrpc';
import { toolResultJson } from './tool-result';

test('a result built from JSON text is byte for byte the serialization of the object', () => {
  for (const structured of [{}, { ok: true, text: 'quote " backslash \\ line\nsep \u2028 control \u0001 é ✓ 😀' }, { hits: [{ n: 1 }, null, [1.5, -0]] }]) {
    for (const isError of [false, true]) {
      const json = JSON.stringify(structured);
      const expected = JSON.stringify({ content: [{ type: 'text', text: json }], structuredContent: structured, isError });
      assert.equal(toolResultJson(json, isError), expected);
      for (const id of [0, 42, -7, 'r-1', 'é"\\']) {
        assert.equal(resultMessageJson(id, toolResultJson(json, isError)), JSON.stringify({ jsonrpc: '2.0', id, result: JSON.parse(expected) }));
      }
    }
  }
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkFindToolInput, FIND_TOOL_LIMITS } from './find-tool-input';

test('a query alone takes the defaults', () => {
  assert.deepEqual(checkFindToolInput({ query: 'read a file' }), {
    ok: true,
    query: { query: 'read a file', topK: FIND_TOOL_LIMITS.defaultTopK, server: undefined, includeSchema: false },
  });
});

test('every field within its bounds is accepted as given', () => {
  assert.deepEqual(checkFindToolInput({ query: 'q', top_k: 10, server: 'files', include_schema: true }), {
    ok: true,
    query: { query: 'q', topK: 10, server: 'files', includeSchema: true },
  });
});

test('each broken rule is named, and no value is echoed', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ query: 'q', secret: 'hunter2' }, /^unknown field\(s\); allowed: query, top_k, server, include_schema$/],
    [{}, /^`query` must be a string of 1\.\.500 characters/],
    [{ query: '' }, /^`query` must be/],
    [{ query: '😀'.repeat(501) }, /^`query` must be/],
    [{ query: 'q', top_k: 0 }, /^`top_k` must be an integer from 1 to 10$/],
    [{ query: 'q', top_k: 2.5 }, /^`top_k` must be/],
    [{ query: 'q', top_k: '5' }, /^`top_k` must be/],
    [{ query: 'q', server: '' }, /^`server` must be a backend name of 1\.\.63 characters$/],
    [{ query: 'q', include_schema: 'yes' }, /^`include_schema` must be a boolean$/],
  ];
  for (const [args, message] of cases) {
    const checked = checkFindToolInput(args);
    assert.equal(checked.ok, false, JSON.stringify(args));
    if (!checked.ok) {
      assert.match(checked.message, message);
      assert.ok(!checked.message.includes('hunter2'));
    }
  }
});

test('500 characters are counted as code points, as the published maxLength counts them', () => {
  assert.equal(checkFindToolInput({ query: '😀'.repeat(500) }).ok, true);
});

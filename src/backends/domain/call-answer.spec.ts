import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RouterError } from '../../common/router-error';
import { modernOutcomeOf, outcomeOf, readCallAnswer, toCallResult } from './call-answer';

const answer = (result: unknown, id: unknown = 'c1') => ({ jsonrpc: '2.0', id, result });

test('a result for the id keeps content, structuredContent and isError only', () => {
  const read = readCallAnswer(answer({ content: [{ type: 'text', text: 'hi' }], structuredContent: { n: 1 }, isError: false, _meta: { x: 1 } }), 'c1');
  assert.deepEqual(read, { kind: 'result', result: { content: [{ type: 'text', text: 'hi' }], structuredContent: { n: 1 }, isError: false } });
});

test('notifications, server requests and answers to other ids are not the answer', () => {
  assert.deepEqual(readCallAnswer({ jsonrpc: '2.0', method: 'notifications/progress', params: {} }, 'c1'), { kind: 'other' });
  assert.deepEqual(readCallAnswer({ jsonrpc: '2.0', id: 'c1', method: 'sampling/createMessage' }, 'c2'), { kind: 'other' });
  assert.deepEqual(readCallAnswer(answer({ content: [] }, 1), 'c1'), { kind: 'other' });
  assert.deepEqual(readCallAnswer('text', 'c1'), { kind: 'other' });
});

test("a JSON-RPC error keeps its code and drops the backend's message", () => {
  assert.deepEqual(readCallAnswer({ jsonrpc: '2.0', id: 'c1', error: { code: -32602, message: 'bad secret=hunter2' } }, 'c1'), { kind: 'error', code: -32602 });
  assert.deepEqual(readCallAnswer({ jsonrpc: '2.0', id: 'c1', error: 'nope' }, 'c1'), { kind: 'malformed' });
});

test('every content kind of the spec passes; a block missing its required field, an unknown kind or a bad type does not', () => {
  const good = [
    { type: 'text', text: '' },
    { type: 'image', data: 'AA==', mimeType: 'image/png' },
    { type: 'audio', data: 'AA==', mimeType: 'audio/wav' },
    { type: 'resource_link', uri: 'file:///a', name: 'a' },
    { type: 'resource', resource: { uri: 'file:///a', text: 'x' } },
    { type: 'resource', resource: { uri: 'file:///a', blob: 'AA==' } },
  ];
  assert.equal(toCallResult({ content: good })?.content.length, good.length);
  for (const bad of [
    { content: [{ type: 'text' }] },
    { content: [{ type: 'video', data: 'x' }] },
    { content: [{ type: 'resource', resource: { uri: 'x' } }] },
    { content: [null] },
    { content: 'text' },
    {},
    { content: [], structuredContent: [1] },
    { content: [], isError: 'yes' },
  ]) {
    assert.equal(toCallResult(bad), undefined, JSON.stringify(bad));
    assert.deepEqual(readCallAnswer(answer(bad), 'c1'), { kind: 'malformed' });
  }
});

test('the outcome of the message that had to answer: the result, or one failure each, with no backend text', () => {
  const result = { content: [{ type: 'text' as const, text: 'hi' }] };
  assert.deepEqual(outcomeOf({ kind: 'result', result }, 'files'), result);
  const failures = [outcomeOf({ kind: 'error', code: -32602 }, 'files'), outcomeOf({ kind: 'malformed' }, 'files'), outcomeOf({ kind: 'other' }, 'files')];
  assert.deepEqual(
    failures.map((f) => f instanceof RouterError && [f.code, f.message]),
    [
      ['backend_failed', 'backend files answered with JSON-RPC error -32602'],
      ['backend_failed', 'backend files sent a malformed result'],
      ['backend_failed', 'backend files sent a malformed result'],
    ],
  );
});

test('an input_required result is read as such, and fails a 2025 call as malformed but answers a 2026 round', () => {
  const read = readCallAnswer(answer({ resultType: 'input_required', requestState: 'opaque' }), 'c1');
  assert.deepEqual(read, { kind: 'input_required', requestState: 'opaque', inputMethods: [] });
  const legacy = outcomeOf(read, 'files');
  assert.ok(legacy instanceof RouterError);
  assert.deepEqual([legacy.code, legacy.message], ['backend_failed', 'backend files sent a malformed result']);
  assert.deepEqual(modernOutcomeOf(read, 'files'), read);
  const result = { content: [{ type: 'text' as const, text: 'hi' }] };
  assert.deepEqual(modernOutcomeOf({ kind: 'result', result }, 'files'), result);
  assert.deepEqual(readCallAnswer(answer({ resultType: 'input_required' }), 'c1'), { kind: 'malformed' });
});

test('a complete 2026 result (resultType "complete") is a result like any other', () => {
  assert.deepEqual(readCallAnswer(answer({ resultType: 'complete', content: [{ type: 'text', text: 'hi' }] }), 'c1'), {
    kind: 'result',
    result: { content: [{ type: 'text', text: 'hi' }] },
  });
});

test('content and structured content are relayed as sent, not copied; a non-object result or envelope is not a result', () => {
  const content = [{ type: 'text', text: 'hi' }];
  const structuredContent = { rows: [1, 2] };
  const read = readCallAnswer(answer({ content, structuredContent }), 'c1');
  assert.ok(read.kind === 'result');
  assert.equal(read.result.content, content);
  assert.equal(read.result.structuredContent, structuredContent);
  assert.deepEqual(Object.keys(read.result), ['content', 'structuredContent']);
  for (const result of [null, [content], 'text', 1]) assert.deepEqual(readCallAnswer(answer(result), 'c1'), { kind: 'malformed' });
  assert.deepEqual(readCallAnswer({ jsonrpc: '1.0', id: 'c1', result: { content } }, 'c1'), { kind: 'other' });
  assert.deepEqual(readCallAnswer([{ jsonrpc: '2.0', id: 'c1', result: { content } }], 'c1'), { kind: 'other' });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { offeringsOf, offeringWireRequest, readOfferingResult } from './modern-offerings';
import { readDiscoverAnswer } from './modern-protocol';

const discover = (capabilities: unknown) => readDiscoverAnswer({ jsonrpc: '2.0', id: 'd1', result: { supportedVersions: ['2026-07-28'], capabilities } });

test('discovery declares resources and prompts by their capability objects; anything else declares nothing', () => {
  assert.deepEqual(offeringsOf(discover({ tools: {}, resources: {}, prompts: { listChanged: true } })), { resources: true, prompts: true });
  assert.deepEqual(offeringsOf(discover({ tools: {}, resources: { subscribe: true } })), { resources: true, prompts: false });
  assert.deepEqual(offeringsOf(discover({ resources: true, prompts: null })), { resources: false, prompts: false });
  assert.deepEqual(offeringsOf(readDiscoverAnswer({ jsonrpc: '2.0', id: 'd1', error: { code: -32601 } })), { resources: false, prompts: false });
});

test('a read and a get name their URI or prompt for the Mcp-Name header; listings carry only their cursor', () => {
  assert.deepEqual(offeringWireRequest({ method: 'resources/read', uri: 'file:///a b' }), {
    method: 'resources/read',
    params: { uri: 'file:///a b' },
    name: 'file:///a b',
  });
  assert.deepEqual(offeringWireRequest({ method: 'prompts/get', name: 'greet', arguments: { who: 'x' } }), {
    method: 'prompts/get',
    params: { name: 'greet', arguments: { who: 'x' } },
    name: 'greet',
  });
  assert.deepEqual(offeringWireRequest({ method: 'prompts/list' }), { method: 'prompts/list', params: {} });
  assert.deepEqual(offeringWireRequest({ method: 'resources/templates/list', cursor: 'c2' }), { method: 'resources/templates/list', params: { cursor: 'c2' } });
});

test("a result is checked by its method's schema; extra modern fields stay; a wrong shape is malformed", () => {
  const listed = readOfferingResult('resources/list', { resources: [{ uri: 'memo://a', name: 'a' }], resultType: 'complete', ttlMs: 5 }, 'wx');
  assert.deepEqual(listed.resources, [{ uri: 'memo://a', name: 'a' }]);
  assert.equal(listed.ttlMs, 5);
  assert.deepEqual(readOfferingResult('resources/read', { contents: [{ uri: 'memo://a', text: 'hi' }] }, 'wx').contents, [{ uri: 'memo://a', text: 'hi' }]);
  assert.throws(() => readOfferingResult('prompts/get', { messages: 'none' }, 'wx'), /backend wx sent a malformed result/);
  assert.throws(() => readOfferingResult('prompts/list', undefined, 'wx'), /backend wx sent a malformed result/);
});

test('an input_required result fails with the methods it asked for: the router declares no client capabilities', () => {
  assert.throws(
    () =>
      readOfferingResult(
        'prompts/get',
        { resultType: 'input_required', inputRequests: { a: { method: 'elicitation/create' }, b: { method: 'elicitation/create' } } },
        'wx',
      ),
    /backend wx asked for input the router cannot give \(elicitation\/create\)/,
  );
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkPromptGet, checkResourceRead, promptResult } from './offering-requests';

test('resources/read takes a uri and, to resume, a cursor; nothing else', () => {
  assert.deepEqual(checkResourceRead({ uri: 'centralmcp://a/x' }, 4096), { ok: true, uri: 'centralmcp://a/x' });
  assert.deepEqual(checkResourceRead({ uri: 'centralmcp://a/x', cursor: 'c' }, 4096), { ok: true, uri: 'centralmcp://a/x', cursor: 'c' });
  for (const params of [{}, { uri: '' }, { uri: 1 }, { uri: 'x', cursor: '' }, { uri: 'x', other: 1 }]) {
    assert.equal(checkResourceRead(params, 4096).ok, false, JSON.stringify(params));
  }
});

test('prompts/get takes a name and string arguments; a refusal never echoes a value', () => {
  assert.deepEqual(checkPromptGet({ name: 'a__p', arguments: { who: 'Ada' } }), { ok: true, name: 'a__p', arguments: { who: 'Ada' } });
  assert.deepEqual(checkPromptGet({ name: 'a__p' }), { ok: true, name: 'a__p', arguments: {} });
  const refused = checkPromptGet({ name: 'a__p', arguments: { secret: 12345 } });
  assert.equal(refused.ok, false);
  assert.ok(!JSON.stringify(refused).includes('12345'));
  assert.equal(checkPromptGet({ name: 'a__p', arguments: [] }).ok, false);
});

test("a prompt's description is cleaned and the URIs of its embedded resources and links are published", () => {
  const publish = (uri: string) => `centralmcp://a/${uri}`;
  const result = promptResult(
    {
      description: 'hi\u200b there',
      messages: [
        { role: 'user', content: { type: 'text', text: 'keep\u200b me' } },
        { role: 'user', content: { type: 'resource', resource: { uri: 'demo://1', text: 't' } } },
        { role: 'assistant', content: { type: 'resource_link', uri: 'demo://2', name: 'n', description: 'd\u202e' } },
      ],
    },
    publish,
  );
  assert.deepEqual(result, {
    description: 'hi there',
    messages: [
      { role: 'user', content: { type: 'text', text: 'keep\u200b me' } },
      { role: 'user', content: { type: 'resource', resource: { uri: 'centralmcp://a/demo://1', text: 't' } } },
      { role: 'assistant', content: { type: 'resource_link', uri: 'centralmcp://a/demo://2', name: 'n', description: 'd' } },
    ],
  });
});

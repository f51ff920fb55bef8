import assert from 'node:assert/strict';
import { test } from 'node:test';
import { originOfName, originOfUri, publishedName, publishedUri, publishOfferings } from './offerings';

test('a published URI carries the backend and the backend URI unchanged, and maps back', () => {
  const uri = publishedUri('docs', 'file:///a b/{path}?q=1');
  assert.equal(uri, 'centralmcp://docs/file:///a b/{path}?q=1');
  assert.deepEqual(originOfUri(uri), { backend: 'docs', id: 'file:///a b/{path}?q=1' });
  // A template stays a template: expanding the published one gives a URI that maps back to the expanded own one.
  assert.deepEqual(originOfUri(publishedUri('docs', 'file:///{path}').replace('{path}', 'x/y')), { backend: 'docs', id: 'file:///x/y' });
});

test('two backends never collide: the same URI or name of each publishes apart', () => {
  assert.notEqual(publishedUri('a', 'demo://x'), publishedUri('b', 'demo://x'));
  assert.notEqual(publishedName('a', 'p'), publishedName('b', 'p'));
});

test('anything else is not a published URI or name', () => {
  for (const uri of ['demo://x', 'centralmcp://', 'centralmcp://docs', 'centralmcp://docs/', 'centralmcp://Docs/x', 'centralmcp:///x']) {
    assert.equal(originOfUri(uri), undefined, uri);
  }
  for (const name of ['plain', '__x', 'docs__', 'Docs__x', 'do_cs__x']) assert.equal(originOfName(name), undefined, name);
});

test("the first __ ends the backend's name: a prompt name may hold __ itself", () => {
  assert.deepEqual(originOfName(publishedName('team-a', 'x__y')), { backend: 'team-a', id: 'x__y' });
});

test('listings are namespaced, cleaned of hidden characters, and keep only the fields the spec defines', () => {
  const hidden = '\u200b\u202e\u{E0041}\u001b[8m';
  const skipped: string[] = [];
  const resources = publishOfferings(
    'resources',
    'docs',
    [
      {
        uri: 'demo://a',
        name: `a${hidden}`,
        description: `line one\nline two${hidden}`,
        mimeType: 'text/plain',
        size: 3,
        icons: [{}],
        _meta: { x: 1 },
        annotations: { audience: ['user', 'bot'], priority: 2 },
      },
      { uri: 'demo://a', name: 'twice' },
      { name: 'no uri' },
      'not an object',
    ],
    (reason) => skipped.push(reason),
  );
  assert.deepEqual(resources, [
    {
      uri: 'centralmcp://docs/demo://a',
      name: 'docs__a',
      description: 'line one line two',
      mimeType: 'text/plain',
      size: 3,
      annotations: { audience: ['user'] },
    },
  ]);
  assert.equal(skipped.length, 2);

  const templates = publishOfferings('templates', 'docs', [{ uriTemplate: 'demo://{id}', name: 't', title: `T${hidden}` }]);
  assert.deepEqual(templates, [{ uriTemplate: 'centralmcp://docs/demo://{id}', name: 'docs__t', title: 'T' }]);

  const prompts = publishOfferings('prompts', 'docs', [
    { name: 'p', description: `say${hidden}`, arguments: [{ name: 'who', description: `w${hidden}`, required: true }, { nameless: 1 }] },
  ]);
  assert.deepEqual(prompts, [{ name: 'docs__p', description: 'say', arguments: [{ name: 'who', description: 'w', required: true }] }]);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CatalogTool } from '../registry.types';
import { indexByName, ownTools, replaceBackendNames, resolveTool } from './resolve';

function tool(backend: string, name: string): CatalogTool {
  return { backend, name, description: '', inputSchema: { type: 'object' } };
}

test('replacing one backend leaves the others, and the map equals one built from scratch', () => {
  const files = [tool('files', 'read'), tool('files', 'status')];
  const docs = [tool('docs', 'status'), tool('docs', 'search')];
  const byName = indexByName([...files, ...docs]);
  const nextFiles = [tool('files', 'read'), tool('files', 'write')];
  replaceBackendNames(byName, 'files', files, nextFiles);
  const sorted = (m: Map<string, CatalogTool[]>) =>
    [...m]
      .map(
        ([n, l]) =>
          `${n}=${l
            .map((t) => t.backend)
            .sort()
            .join(',')}`,
      )
      .sort();
  assert.deepEqual(sorted(byName), sorted(indexByName([...nextFiles, ...docs])));
  assert.deepEqual(resolveTool(byName, 'status', undefined), { kind: 'found', tool: docs[0] });
  assert.deepEqual(resolveTool(byName, 'write', 'files'), { kind: 'found', tool: nextFiles[1] });
  replaceBackendNames(byName, 'docs', docs, []);
  assert.equal(byName.has('search'), false, 'a name nobody publishes is dropped');
});

test('a backend keeps only its own tools, the first of each name', () => {
  const first = tool('a', 'x');
  assert.deepEqual(ownTools('a', [first, tool('b', 'y'), tool('a', 'x')]), [first]);
});

test('without a server, only callable tools count: a twin the caller cannot call is never named', () => {
  const open = tool('tp1', 'lookup');
  const held = tool('tp2', 'lookup');
  const byName = indexByName([open, held]);
  const callable = (t: CatalogTool) => t.backend !== 'tp2';
  assert.deepEqual(
    resolveTool(byName, 'lookup', undefined, () => true, callable),
    { kind: 'found', tool: open },
  );
  // Named explicitly, the held tool is still found, so its call can say why it is refused.
  assert.deepEqual(
    resolveTool(byName, 'lookup', 'tp2', () => true, callable),
    { kind: 'found', tool: held },
  );
  assert.deepEqual(resolveTool(byName, 'lookup', undefined), { kind: 'ambiguous', servers: ['tp1', 'tp2'] });
});

test('a sole tool the caller cannot call is found; several are refused without naming a server', () => {
  const only = indexByName([tool('tp2', 'lookup')]);
  assert.equal(
    resolveTool(
      only,
      'lookup',
      undefined,
      () => true,
      () => false,
    ).kind,
    'found',
  );
  const twins = indexByName([tool('tp1', 'lookup'), tool('tp2', 'lookup')]);
  assert.deepEqual(
    resolveTool(
      twins,
      'lookup',
      undefined,
      () => true,
      () => false,
    ),
    { kind: 'refused' },
  );
});

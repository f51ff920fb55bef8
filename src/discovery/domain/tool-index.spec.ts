import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CatalogTool } from '../../registry/registry.types';
import { buildToolIndex, INDEXED_FIELDS, indexState, indexVersion, replaceBackendTools, type IndexState, type ToolIndex } from './tool-index';

const tool = (backend: string, name: string, description = '', inputSchema: Record<string, unknown> = { type: 'object' }): CatalogTool => ({
  backend,
  name,
  description,
  inputSchema,
});

const doc = (index: ToolIndex, backend: string, name: string) => indexState(index).byId.get(`${backend}\u0000${name}`);
const field = (name: (typeof INDEXED_FIELDS)[number]) => INDEXED_FIELDS.indexOf(name);

/** What a search reads of the index, comparable between two indexes (slots and caches aside). */
function contents(state: IndexState) {
  return {
    ids: [...state.byId.keys()].sort(),
    byBackend: [...state.byBackend].map(([backend, tools]) => [backend, tools.map((t) => t.name)]),
    postings: Object.fromEntries([...state.postings].map(([term, holders]): [string, string[]] => [term, [...holders].map((d) => d.id).sort()]).sort()),
    fieldTotals: state.fieldTotals,
    words: Object.fromEntries([...state.words].sort()),
  };
}

test('each field is indexed apart: name, title and description, parameter names, their descriptions and values, backend', () => {
  const index = buildToolIndex([
    {
      ...tool('files', 'read_text_file', 'Reads a file', {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Where the file lives' },
          unit: { enum: ['celsius', 'fahrenheit', 3] },
          options: { type: 'object', properties: { encoding: { description: 'Text encoding' } } },
          list: { type: 'array', items: { properties: { glob: { description: 'A pattern' } } } },
          choice: { anyOf: [{ properties: { mode: {} } }] },
        },
      }),
      annotations: { title: 'Text reader' },
    },
  ]);
  const indexed = doc(index, 'files', 'read_text_file');
  assert.ok(indexed);
  assert.equal(indexed.text[field('name')], 'read_text_file');
  assert.equal(indexed.text[field('description')], 'Text reader. Reads a file');
  assert.equal(indexed.text[field('params')], 'path unit options encoding list glob choice mode');
  assert.equal(indexed.text[field('paramDescriptions')], 'Where the file lives celsius fahrenheit Text encoding A pattern');
  assert.equal(indexed.text[field('backend')], 'files');
  assert.deepEqual(indexed.counts.get('celsius'), [0, 0, 0, 1, 0], 'an enumerated value is a word of what the tool handles');
  assert.deepEqual(indexed.counts.get('read_text_file'), [1, 0, 0, 0, 0], 'the whole name is a term of the name field');
  assert.deepEqual(indexed.nameTerms, ['read', 'text', 'file']);
  assert.deepEqual(indexed.lengths, [4, 4, 8, 7, 1], 'stop words are not counted ("a", "the")');
  assert.deepEqual(indexState(index).fieldTotals, indexed.lengths);
  assert.ok(indexed.words.includes('reads') && !indexed.words.includes('a'), 'plain words are kept unstemmed, two letters or more');
});

test('parameter text is bounded, in size and in schema depth', () => {
  const deep = {
    properties: { l1: { properties: { l2: { properties: { l3: { properties: { l4: { properties: { l5: { properties: { l6: {} } } } } } } } } } } },
  };
  const wide = { properties: Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`param${i}`, {}])) };
  const index = buildToolIndex([tool('b', 'deep', '', deep), tool('b', 'wide', '', wide)]);
  assert.equal(doc(index, 'b', 'deep')?.text[field('params')], 'l1 l2 l3 l4 l5');
  assert.equal(doc(index, 'b', 'wide')?.text[field('params')].length, 4000);
});

test('a description (or title) that says deprecated marks the tool', () => {
  const index = buildToolIndex([
    tool('b', 'old', 'Deprecated: use new'),
    { ...tool('b', 'older', 'Lists'), annotations: { title: 'DEPRECATED list' } },
    tool('b', 'new', 'Lists'),
  ]);
  assert.equal(doc(index, 'b', 'old')?.deprecated, true);
  assert.equal(doc(index, 'b', 'older')?.deprecated, true);
  assert.equal(doc(index, 'b', 'new')?.deprecated, false);
});

test("backends are kept in name order and each backend's tools sorted by name", () => {
  const index = buildToolIndex([tool('zeta', 'b'), tool('zeta', 'a')]);
  replaceBackendTools(index, 'alpha', [tool('alpha', 'y'), tool('alpha', 'x')]);
  assert.deepEqual(
    [...indexState(index).byBackend].map(([backend, tools]) => [backend, tools.map((t) => t.name)]),
    [
      ['alpha', ['x', 'y']],
      ['zeta', ['a', 'b']],
    ],
  );
});

test('replacing a backend leaves exactly what a fresh build of the new catalog holds', () => {
  const before = [tool('a', 'list_files', 'List files in a directory'), tool('a', 'read_file', 'Read a file'), tool('b', 'send_mail', 'Send a message')];
  const after = [tool('a', 'read_file', 'Read a whole file'), tool('a', 'move_file', 'Move a file'), tool('b', 'send_mail', 'Send a message')];
  const index = buildToolIndex(before);
  replaceBackendTools(
    index,
    'a',
    after.filter((t) => t.backend === 'a'),
  );
  assert.deepEqual(contents(indexState(index)), contents(indexState(buildToolIndex(after))));
  assert.equal(indexState(index).postings.has('list'), false, 'a removed tool takes its words with it');
});

test('tools naming another backend are ignored, and a name listed twice keeps its first entry', () => {
  const index = buildToolIndex([]);
  replaceBackendTools(index, 'a', [tool('a', 'x', 'first'), tool('b', 'y'), tool('a', 'x', 'second')]);
  assert.deepEqual([...indexState(index).byId.keys()], ['a\u0000x']);
  assert.equal(doc(index, 'a', 'x')?.tool.description, 'first');
});

test('the version moves with every change, and stays for a refresh that changes nothing', () => {
  const tools = [tool('a', 'x', 'Reads'), tool('a', 'y', 'Writes')];
  const index = buildToolIndex(tools);
  const state = indexState(index);
  const version = indexVersion(index);
  state.expansions.set('read', []);
  state.compiled.set('read', { docs: [], values: new Float64Array(0), inName: new Uint8Array(0) });
  replaceBackendTools(
    index,
    'a',
    tools.map((t) => ({ ...t, inputSchema: { type: 'object' } })),
  );
  assert.equal(indexVersion(index), version, 'equal tools, new objects: nothing changed');
  assert.equal(state.expansions.size, 1);
  replaceBackendTools(index, 'a', [tools[0]]);
  assert.equal(indexVersion(index), version + 1);
  assert.equal(state.expansions.size, 0, 'what was worked out for the old catalog is dropped');
  assert.equal(state.compiled.size, 0);
});

test('a tool whose text is unchanged keeps its document and slot but answers with its newest entry', () => {
  const index = buildToolIndex([tool('a', 'x', 'Reads')]);
  const first = doc(index, 'a', 'x');
  const annotated = { ...tool('a', 'x', 'Reads'), annotations: { readOnlyHint: true } };
  replaceBackendTools(index, 'a', [annotated]);
  assert.equal(doc(index, 'a', 'x'), first);
  assert.equal(first?.tool, annotated);
});

test('the slots of removed tools are reused, so score arrays do not grow with refreshes', () => {
  const index = buildToolIndex([tool('a', 'x', 'one'), tool('a', 'y', 'two')]);
  const state = indexState(index);
  for (let i = 0; i < 5; i += 1) replaceBackendTools(index, 'a', [tool('a', 'x', 'one'), tool('a', `z${i}`, `new ${i}`)]);
  assert.equal(state.slotCount, 2);
  assert.deepEqual([...state.byId.values()].map((d) => d.slot).sort(), [0, 1]);
});

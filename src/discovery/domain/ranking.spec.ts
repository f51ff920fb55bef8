import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CatalogTool } from '../../registry/registry.types';
import { searchTools } from './ranking';
import { buildToolIndex, indexVersion, replaceBackendTools, type ToolIndex } from './tool-index';
import { tokenize } from './terms';
import { loadLexicon } from '../lexicon';

function tool(backend: string, name: string, description: string, properties: Record<string, unknown> = {}): CatalogTool {
  return { backend, name, description, inputSchema: { type: 'object', properties } };
}

const path = { type: 'string', description: 'Path of the file' };

const catalog: CatalogTool[] = [
  tool('files', 'read_text_file', 'Read the complete contents of a file as text, or only its first lines.', {
    path,
    head: { type: 'number' },
  }),
  tool('files', 'list_directory', 'Get a detailed listing of all files and directories in a specified path.', { path }),
  tool('files', 'search_files', 'Recursively search for files matching a glob pattern.', { path, pattern: { type: 'string' } }),
  tool('files', 'write_file', 'Create a new file or overwrite an existing one.', { path, content: { type: 'string' } }),
  tool('memory', 'search_nodes', 'Search for nodes in the knowledge graph based on a query.', { query: { type: 'string' } }),
  tool('memory', 'delete_entities', 'Delete multiple entities from the knowledge graph.', {
    entityNames: { type: 'array', items: { type: 'string' }, description: 'An array of entity names to delete' },
  }),
  tool('memory', 'create_relations', 'Create relations between entities.', {
    relations: {
      type: 'array',
      items: { type: 'object', properties: { relationType: { type: 'string', description: 'The type of the relation' } } },
    },
  }),
  tool('everything', 'get-sum', 'Returns the sum of two numbers', { a: { type: 'number' }, b: { type: 'number' } }),
  tool('everything', 'get-resource-links', 'Returns up to ten resource links'),
  tool('everything', 'echo', 'Echoes back the input string', { message: { type: 'string' } }),
];
const index = buildToolIndex(catalog);

const names = (query: string, topK = 5, backend?: string): string[] =>
  searchTools(index, query, { topK, backend }).map((h) => `${h.tool.backend}:${h.tool.name}`);

test('tokenize splits snake, kebab, camel, dotted and digit boundaries and keeps compounds whole', () => {
  assert.deepEqual(tokenize('read_text_file'), ['read', 'text', 'file', 'read_text_file']);
  assert.deepEqual(tokenize('get-tiny-image'), ['get', 'tiny', 'image', 'get-tiny-image']);
  assert.deepEqual(tokenize('getTinyImage'), ['get', 'tiny', 'image', 'gettinyimage']);
  assert.deepEqual(tokenize('XMLParser'), ['xml', 'parser', 'xmlparser']);
  assert.deepEqual(tokenize('config.yaml'), ['config', 'yaml', 'config.yaml']);
  assert.deepEqual(tokenize('base64 sha256sum'), ['base', '64', 'base64', 'sha', '256', 'sum', 'sha256sum']);
  assert.deepEqual(tokenize("Show me what's in it, (please)!"), ['show', 'me', 'what', 'in', 'it', 'please']);
  assert.deepEqual(tokenize('  \n\t '), []);
});

test('a tool named by the query ranks first, and its exact name ranks it first', () => {
  assert.equal(names('read a text file')[0], 'files:read_text_file');
  assert.equal(names('search_nodes')[0], 'memory:search_nodes');
  assert.equal(names('get-sum')[0], 'everything:get-sum');
});

test('a tool whose name the request covers ranks above one whose description says more of it', () => {
  // Without name coverage `create_project` wins: "create" in its name and both words in its short
  // description outweigh "create" and "task" in the name of `create_task`, whose description is long.
  const tasks = buildToolIndex([
    tool('tasks', 'create_task', 'Add a new item to the to-do list, with a title, a due date, a priority and notes.'),
    tool('tasks', 'complete_task', 'Mark an item done.'),
    tool('tasks', 'list_tasks', 'Show every item.'),
    tool('tasks', 'create_project', 'Create a project, with its first task.'),
  ]);
  assert.deepEqual(
    searchTools(tasks, 'create a task', { topK: 2 }).map((h) => h.tool.name),
    ['create_task', 'create_project'],
  );
});

test('parameter names and nested parameter descriptions are searched', () => {
  assert.equal(names('glob pattern')[0], 'files:search_files');
  assert.equal(names('relationType')[0], 'memory:create_relations');
});

test('inflections fold to the words of the catalog (stemming)', () => {
  assert.equal(names('listing the directories')[0], 'files:list_directory');
  assert.equal(names('deleting an entity')[0], 'memory:delete_entities');
  assert.equal(names('relation between entities')[0], 'memory:create_relations');
  assert.equal(names('summing numbers')[0], 'everything:get-sum');
});

test('with the offline lexicon, words related by meaning find tools that never use them', () => {
  const lexicon = loadLexicon();
  const tools = [
    tool('memory', 'read_graph', 'Read the entire knowledge graph stored in memory'),
    tool('files', 'read_media_file', 'Read an image or audio file and return its data', { path }),
    tool('files', 'list_directory', 'List the entries of a directory', { path }),
    tool('calc', 'get-sum', 'Returns the sum of two numbers', { a: { type: 'number' }, b: { type: 'number' } }),
  ];
  const plain = buildToolIndex(tools);
  const semantic = buildToolIndex(tools, { lexicon });
  const first = (idx: ToolIndex, query: string): string | undefined => searchTools(idx, query, { topK: 1 })[0]?.tool.name;
  // None of these words is in the catalog: without the lexicon nothing answers.
  for (const query of ['what do you remember', 'open my photos']) {
    assert.equal(first(plain, query), undefined, query);
  }
  assert.equal(first(semantic, 'what do you remember'), 'read_graph');
  assert.equal(first(semantic, 'open my photos'), 'read_media_file');
  assert.equal(first(semantic, 'addition of numbers'), 'get-sum');
  // A word the catalog has still outranks what is merely related to it.
  assert.equal(first(semantic, 'list a directory'), 'list_directory');
});

test('a literal says what kind of tool a request needs', () => {
  const tools = [
    tool('files', 'read_media_file', 'Read an image or audio file and return its data', { path }),
    tool('files', 'read_text_file', 'Read a text file', { path }),
    tool('calc', 'get-sum', 'Returns the sum of two numbers', { a: { type: 'number' }, b: { type: 'number' } }),
  ];
  const idx = buildToolIndex(tools);
  assert.equal(searchTools(idx, 'load photo.jpg so I can see it', { topK: 1 })[0].tool.name, 'read_media_file');
  assert.equal(searchTools(idx, 'what is 12 plus 30', { topK: 1 })[0].tool.name, 'get-sum');
});

test('a tool its own description calls deprecated ranks below its replacement', () => {
  const both = buildToolIndex([
    tool('files', 'read_file', 'Read the complete contents of a file. DEPRECATED: use read_text_file instead.', { path }),
    tool('files', 'read_text_file', 'Read the complete contents of a file as text.', { path }),
  ]);
  assert.deepEqual(
    searchTools(both, 'read a file', { topK: 2 }).map((h) => h.tool.name),
    ['read_text_file', 'read_file'],
  );
  // Named exactly, it is still found first.
  assert.equal(searchTools(both, 'read_file', { topK: 1 })[0].tool.name, 'read_file');
});

test('misspelt words are corrected, but correctly spelt words are not fuzzily widened', () => {
  assert.equal(names('serch nodes')[0], 'memory:search_nodes');
  assert.equal(names('delet entites')[0], 'memory:delete_entities');
  // "lines" is a catalog word, so it must not also match its neighbour "links".
  assert.deepEqual(names('lines'), ['files:read_text_file']);
});

test('scores are rounded to 4 decimals and ties break by backend, then name', () => {
  const twins = buildToolIndex([
    tool('zeta', 'fetch_page', 'Fetch a web page'),
    tool('alpha', 'fetch_page', 'Fetch a web page'),
    tool('alpha', 'fetch_other', 'Fetch a web page'),
  ]);
  const hits = searchTools(twins, 'fetch web page', { topK: 5 });
  for (const hit of hits) assert.equal(hit.score, Math.round(hit.score * 1e4) / 1e4);
  assert.deepEqual(
    hits.filter((h) => h.tool.name === 'fetch_page').map((h) => h.tool.backend),
    ['alpha', 'zeta'],
  );
  assert.equal(hits[0].score, hits[1].score);
});

test('a name repeated across backends is two documents, and the backend filter picks one', () => {
  const shared = buildToolIndex([tool('a', 'status', 'Report status'), tool('b', 'status', 'Report status')]);
  assert.deepEqual(
    searchTools(shared, 'status', { topK: 5 }).map((h) => h.tool.backend),
    ['a', 'b'],
  );
  assert.deepEqual(
    searchTools(shared, 'status', { topK: 5, backend: 'b' }).map((h) => h.tool.backend),
    ['b'],
  );
  assert.deepEqual(names('search', 5, 'memory'), ['memory:search_nodes']);
  assert.deepEqual(searchTools(shared, 'status', { topK: 5, backend: 'nope' }), []);
});

test('a (backend, name) listed twice is indexed once, the first entry winning', () => {
  const dup = buildToolIndex([tool('a', 'x_tool', 'First copy'), tool('a', 'x_tool', 'Second copy')]);
  const hits = searchTools(dup, 'copy', { topK: 5 });
  assert.equal(hits.length, 1);
  assert.equal(hits[0].tool.description, 'First copy');
});

test('an empty, blank or stop-word-only query browses the catalog by backend and name', () => {
  const expected = ['everything:echo', 'everything:get-resource-links', 'everything:get-sum'];
  for (const query of ['', '   \n', 'the of and', 'please, what is it?']) {
    const hits = searchTools(index, query, { topK: 3 });
    assert.deepEqual(
      hits.map((h) => `${h.tool.backend}:${h.tool.name}`),
      expected,
      `query ${JSON.stringify(query)}`,
    );
    assert.ok(hits.every((h) => h.score === 0));
  }
  assert.deepEqual(names('', 2, 'memory'), ['memory:create_relations', 'memory:delete_entities']);
});

test('topK bounds the hits; nonsense topK and queries never throw', () => {
  assert.equal(searchTools(index, 'file', { topK: 2 }).length, 2);
  assert.ok(searchTools(index, 'file', { topK: 100 }).length <= catalog.length);
  assert.deepEqual(searchTools(index, 'file', { topK: 0 }), []);
  assert.deepEqual(searchTools(index, 'file', { topK: Number.NaN }), []);
  assert.equal(searchTools(index, 'file', { topK: 2.9 }).length, 2);
  assert.deepEqual(searchTools(index, 'qqqqzzzz xyzzy', { topK: 5 }), []);
  assert.ok(searchTools(index, 'file '.repeat(50_000), { topK: 5 }).length > 0);
  assert.doesNotThrow(() => searchTools(index, '\u0000 ☃ 文件 😀 __ -- ..', { topK: 5 }));
  assert.deepEqual(searchTools(buildToolIndex([]), 'anything', { topK: 5 }), []);
  assert.deepEqual(searchTools(buildToolIndex([]), '', { topK: 5 }), []);
});

test('odd input schemas are indexed without throwing', () => {
  const odd = buildToolIndex([
    { backend: 'x', name: 'a', description: '', inputSchema: {} },
    { backend: 'x', name: 'b', description: '', inputSchema: { properties: 'nope', items: [null, 3] } },
    { backend: 'x', name: 'c', description: '', inputSchema: { properties: { p: null, q: { description: 7 } } } },
  ]);
  assert.deepEqual(
    searchTools(odd, 'q', { topK: 5 }).map((h) => h.tool.name),
    ['c'],
  );
});

test('a known tool ranks first among 10,000 synthetic tools', () => {
  const verbs = ['get', 'list', 'create', 'update', 'delete', 'search', 'read', 'write', 'sync', 'export'];
  const nouns = ['user', 'order', 'invoice', 'ticket', 'file', 'page', 'report', 'metric', 'alert', 'deploy'];
  const tools: CatalogTool[] = [];
  for (let i = 0; tools.length < 9_999; i += 1) {
    const verb = verbs[i % verbs.length];
    const noun = nouns[Math.floor(i / verbs.length) % nouns.length];
    tools.push(
      tool(`backend-${i % 50}`, `${verb}_${noun}_${i}`, `${verb} a ${noun} record number ${i} in the system`, {
        id: { type: 'string', description: `Identifier of the ${noun}` },
      }),
    );
  }
  tools.push(tool('billing', 'refund_invoice', 'Refund a paid invoice to the customer card', { invoiceId: { type: 'string' } }));
  const big = buildToolIndex(tools);
  assert.deepEqual(searchTools(big, 'refund an invoice', { topK: 3 }).map((h) => `${h.tool.backend}:${h.tool.name}`)[0], 'billing:refund_invoice');
  assert.equal(searchTools(big, 'refnd invoice', { topK: 3 })[0].tool.name, 'refund_invoice');
  assert.equal(searchTools(big, 'get_user_0', { topK: 3 })[0].tool.name, 'get_user_0');
});

const ranked = (idx: ToolIndex, query: string, topK = 10): string[] =>
  searchTools(idx, query, { topK }).map((h) => `${h.tool.backend}:${h.tool.name}:${h.score}`);

const UPDATE_QUERIES = ['read a text file', 'search', 'delete entities', 'serch nodes', 'file', 'relationship', '', 'sum of numbers', 'lines'];

test('replacing one backend in place answers exactly like a fresh build of the new catalog', () => {
  const live = buildToolIndex(catalog);
  const files = catalog.filter((t) => t.backend === 'files');
  const nextFiles = [
    files[0],
    { ...files[1], description: 'List every entry of a folder, directories first.' },
    tool('files', 'move_file', 'Move or rename a file or a directory.', { source: path, destination: path }),
  ];
  replaceBackendTools(live, 'files', nextFiles);
  const fresh = buildToolIndex([...nextFiles, ...catalog.filter((t) => t.backend !== 'files')]);
  for (const query of [...UPDATE_QUERIES, 'move a file', 'glob pattern']) {
    assert.deepEqual(ranked(live, query), ranked(fresh, query), `query ${JSON.stringify(query)}`);
  }
  // And back again, then a new backend and an emptied one: still a fresh build's answers.
  replaceBackendTools(live, 'files', files);
  replaceBackendTools(live, 'aaa', [tool('aaa', 'ping', 'Ping a host')]);
  replaceBackendTools(live, 'memory', []);
  const again = buildToolIndex([tool('aaa', 'ping', 'Ping a host'), ...catalog.filter((t) => t.backend !== 'memory')]);
  for (const query of [...UPDATE_QUERIES, 'ping', 'glob pattern']) {
    assert.deepEqual(ranked(live, query), ranked(again, query), `query ${JSON.stringify(query)}`);
  }
});

test('a removed tool is forgotten, words and all, so misspellings are corrected toward what is left', () => {
  const live = buildToolIndex(catalog);
  replaceBackendTools(live, 'memory', []);
  assert.deepEqual(
    searchTools(live, 'search_nodes', { topK: 5 }).filter((h) => h.tool.backend === 'memory'),
    [],
  );
  // "entities" is no longer a catalog word: a misspelling of it finds nothing rather than a ghost.
  assert.deepEqual(ranked(live, 'entites'), ranked(buildToolIndex(catalog.filter((t) => t.backend !== 'memory')), 'entites'));
});

test('an unchanged tool keeps its document but answers with its newest entry (annotations)', () => {
  const live = buildToolIndex(catalog);
  const before = indexVersion(live);
  const renewed = catalog.filter((t) => t.backend === 'everything').map((t) => ({ ...t, annotations: { readOnlyHint: true } }));
  replaceBackendTools(live, 'everything', renewed);
  assert.ok(indexVersion(live) > before, 'a replacement that changes anything is a new version');
  const hit = searchTools(live, 'get-sum', { topK: 1 })[0];
  assert.equal(
    hit.tool,
    renewed.find((t) => t.name === 'get-sum'),
  );
  assert.deepEqual(ranked(live, 'get-sum'), ranked(index, 'get-sum'));
});

test('tools naming another backend are ignored by a replacement, and repeated names keep the first', () => {
  const live = buildToolIndex([]);
  replaceBackendTools(live, 'a', [tool('a', 'x', 'First copy'), tool('b', 'y', 'Stray copy'), tool('a', 'x', 'Second copy')]);
  const hits = searchTools(live, 'copy', { topK: 5 });
  assert.deepEqual(
    hits.map((h) => `${h.tool.backend}:${h.tool.name}:${h.tool.description}`),
    ['a:x:First copy'],
  );
});

test('a browse lists backends in name order whatever order they arrived in', () => {
  const live = buildToolIndex([]);
  replaceBackendTools(live, 'zeta', [tool('zeta', 'b', ''), tool('zeta', 'a', '')]);
  replaceBackendTools(live, 'alpha', [tool('alpha', 'c', '')]);
  assert.deepEqual(ranked(live, ''), ['alpha:c:0', 'zeta:a:0', 'zeta:b:0']);
  assert.deepEqual(ranked(live, '', 2), ['alpha:c:0', 'zeta:a:0']);
  assert.deepEqual(
    searchTools(live, '', { topK: 5, visible: (t) => t.name !== 'a' }).map((h) => h.tool.name),
    ['c', 'b'],
  );
});

test('a refresh that changes nothing keeps the version, so cached rankings stay valid', () => {
  const live = buildToolIndex(catalog);
  const before = indexVersion(live);
  const copies = catalog.filter((t) => t.backend === 'files').map((t) => ({ ...t, inputSchema: structuredClone(t.inputSchema) }));
  replaceBackendTools(live, 'files', copies);
  assert.equal(indexVersion(live), before);
  replaceBackendTools(
    live,
    'files',
    copies.map((t, i) => (i === 0 ? { ...t, inputSchema: { type: 'object' } } : t)),
  );
  assert.ok(indexVersion(live) > before, 'a schema change is a change: find_tool answers with schemas');
  assert.equal(searchTools(live, 'read a text file', { topK: 1 })[0].tool.inputSchema.properties, undefined);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CatalogTool } from '../../registry/registry.types';
import { searchTools } from './ranking';
import { serverWords } from './server-words';
import { buildToolIndex, indexState, replaceBackendTools } from './tool-index';

function tool(backend: string, name: string, description: string): CatalogTool {
  return { backend, name, description, inputSchema: { type: 'object', properties: {} } };
}

const catalog: CatalogTool[] = [
  tool('github', 'search_code', 'Search code across all GitHub repositories, using GitHub code search syntax.'),
  tool('github', 'create_issue', 'Create a new issue in a repository.'),
  tool('github', 'list_commits', 'List the commits of a branch.'),
  tool('jira', 'get_issue', 'Get one issue by its key.'),
  tool('jira', 'import_github_issues', 'Import the issues of a repository.'),
  tool('wikipedia-search', 'search_wikipedia', 'Search Wikipedia articles.'),
  tool('mirror', 'mirror_repository', 'Mirror a GitHub repository to another host.'),
];

test('the words of a backend name that no tool name holds only name servers', () => {
  const words = serverWords(indexState(buildToolIndex(catalog)));
  assert.deepEqual([...words.keys()].sort(), ['jira']);
  const withoutImport = serverWords(indexState(buildToolIndex(catalog.filter((t) => t.name !== 'import_github_issues'))));
  assert.deepEqual([...withoutImport.keys()].sort(), ['github', 'jira']);
  assert.deepEqual([...(withoutImport.get('github') ?? [])], ['github']);
});

test('a word that only names a server lifts its tools alike, whichever of them mentions it', () => {
  const index = buildToolIndex(catalog.filter((t) => t.name !== 'import_github_issues'));
  const hits = searchTools(index, 'github', { topK: 10 });
  const github = hits.filter((h) => h.tool.backend === 'github');
  assert.equal(github.length, 3);
  assert.equal(new Set(github.map((h) => h.score)).size, 1, 'one score for the whole server');
  // A tool of another server that speaks of it keeps its own match.
  assert.ok(hits.some((h) => h.tool.name === 'mirror_repository'));
  // So the request's other words choose among the server's tools.
  assert.equal(searchTools(index, 'list github commits', { topK: 1 })[0].tool.name, 'list_commits');
  assert.equal(searchTools(index, 'create github issue', { topK: 1 })[0].tool.name, 'create_issue');
});

test('a server word becomes a tool word again once a tool name holds it', () => {
  const index = buildToolIndex(catalog.filter((t) => t.name !== 'import_github_issues'));
  const before = searchTools(index, 'github', { topK: 10 });
  assert.equal(new Set(before.filter((h) => h.tool.backend === 'github').map((h) => h.score)).size, 1);
  replaceBackendTools(index, 'jira', [tool('jira', 'get_issue', 'Get one issue by its key.'), tool('jira', 'import_github_issues', 'Import issues.')]);
  const after = searchTools(index, 'github', { topK: 10 });
  assert.equal(after[0].tool.name, 'import_github_issues');
  assert.ok(after.find((h) => h.tool.name === 'search_code')!.score > after.find((h) => h.tool.name === 'create_issue')!.score);
});

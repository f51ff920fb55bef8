import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CatalogTool } from '../../registry/registry.types';
import { loadLexicon } from '../lexicon';
import { searchTools } from './ranking';
import { corrections, editDistance, englishCorrection } from './spelling';
import { buildToolIndex, indexState } from './tool-index';

function tool(backend: string, name: string, description: string): CatalogTool {
  return { backend, name, description, inputSchema: { type: 'object', properties: {} } };
}

const catalog = [
  tool('code', 'search_repositories', 'Search for repositories.'),
  tool('code', 'search_issues', 'Search for issues and pull requests.'),
  tool('code', 'search_users', 'Search for users.'),
  tool('code', 'list_commits', 'Get the commits of a branch.'),
  tool('memory', 'delete_relations', 'Delete relations from the knowledge graph.'),
  tool('memory', 'delete_observations', 'Delete observations from entities.'),
  tool('memory', 'delete_entities', 'Delete entities and their relations.'),
  tool('files', 'read_media_file', 'Read an image or audio file.'),
];
const lexicon = loadLexicon();
const index = buildToolIndex(catalog, { lexicon });
const first = (query: string): string | undefined => searchTools(index, query, { topK: 3 })[0]?.tool.name;

test('edit distance counts a swap of neighbours as one edit and stops past its bound', () => {
  assert.equal(editDistance('usres', 'users', 2), 1);
  assert.equal(editDistance('serach', 'search', 2), 1);
  assert.equal(editDistance('abcdef', 'uvwxyz', 2), 3);
});

test('a misspelt word is compared with the catalog words as written, not with their stems', () => {
  // Stemmed, "usres" is `usr` and "users" `user`: too short and too far apart to correct.
  assert.deepEqual(
    corrections(indexState(index), 'usr', 'usres').map((c) => c.term),
    ['user'],
  );
  assert.equal(first('serch usres'), 'search_users');
  assert.equal(first('delete realtoins'), 'delete_relations');
  assert.equal(first('serach reposotories'), 'search_repositories');
  assert.equal(first('lsit comits'), 'list_commits');
});

test('a half-typed word still finds the words it begins', () => {
  assert.deepEqual(
    corrections(indexState(index), 'repo', 'repo').map((c) => c.term),
    ['repositori'],
  );
});

test('a misspelt word is read as the one English word it is an edit from, or as none', () => {
  assert.equal(englishCorrection(lexicon, 'phtoo'), 'photo');
  assert.equal(englishCorrection(lexicon, 'airtificial'), 'artificial');
  // Several words are one edit away: a name or another language's word, not a typo to guess at.
  assert.equal(englishCorrection(lexicon, 'dalam'), undefined);
  assert.equal(englishCorrection(lexicon, 'xqzvw'), undefined);
  assert.equal(englishCorrection(lexicon, 'fto'), undefined);
});

test('a misspelt word no catalog word is near finds the catalog through the English word it misspells', () => {
  // No catalog word is an edit from "phtoo"; "photo" is, and the catalog says `image`.
  assert.deepEqual(corrections(indexState(index), 'phtoo', 'phtoo'), []);
  assert.equal(first('open the phtoo'), 'read_media_file');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CatalogTool } from '../../registry/registry.types';
import { loadLexicon } from '../lexicon';
import { commonAbbreviation, initialsOf, withAbbreviations } from './abbreviations';
import { searchTools } from './ranking';
import { nameWords, queryTerms } from './terms';
import { buildToolIndex, indexState, replaceBackendTools } from './tool-index';

function tool(backend: string, name: string, description: string): CatalogTool {
  return { backend, name, description, inputSchema: { type: 'object', properties: {} } };
}

const code = [
  tool('code', 'create_pull_request', 'Open a new change for review.'),
  tool('code', 'list_pull_requests', 'Changes proposed for a repository, newest first.'),
  tool('code', 'merge_pull_request', 'Merge an approved change.'),
  tool('code', 'list_issues', 'Open issues of a repository.'),
  tool('code', 'transfer_to_human', 'Hand the conversation to a person.'),
  tool('code', 'transfer_to_hotel', 'Book a shuttle to the hotel.'),
  tool('files', 'create_directory', 'Make a new folder.'),
  tool('files', 'move_file', 'Rename or relocate a file.'),
  tool('files', 'get_file_info', 'Size and times of a path.'),
];
const lexicon = loadLexicon();
const index = buildToolIndex(code, { lexicon });
const first = (query: string): string | undefined => searchTools(index, query, { topK: 5 })[0]?.tool.name;

test('a word spelling initials stands for the phrase two or more tool names share, plural too', () => {
  const names = code.map((t) => nameWords(t.name));
  assert.deepEqual(initialsOf(names, 'pr'), ['pull request']);
  assert.deepEqual(initialsOf(names, 'prs'), ['pull request']);
  // Function words are not abbreviated: no "th" for `transfer_to_human` and `transfer_to_hotel`.
  assert.deepEqual(initialsOf(names, 'th'), []);
  // One tool's run of words is chance, not a term the catalog abbreviates.
  assert.deepEqual(initialsOf(names, 'gfi'), []);
  assert.deepEqual(initialsOf(names, 'p'), []);
  assert.deepEqual(initialsOf(names, 'abcdef'), []);
});

test('the table holds common abbreviations and command names, plurals as their own entries', () => {
  assert.equal(commonAbbreviation('mkdir'), 'create directory');
  assert.equal(commonAbbreviation('rm'), 'delete');
  assert.equal(commonAbbreviation('repos'), 'repositories');
  assert.equal(commonAbbreviation('cats'), undefined);
  assert.equal(commonAbbreviation('toString'), undefined);
  assert.equal(commonAbbreviation('constructor'), undefined);
});

test('find_tool ranking reads abbreviations the catalog does not spell out', () => {
  assert.equal(first('list open prs'), 'list_pull_requests');
  assert.equal(first('merge the pr'), 'merge_pull_request');
  assert.equal(first('mkdir reports'), 'create_directory');
  assert.equal(first('mv notes.txt to the archive'), 'move_file');
});

test('a word the catalog has is not read as an abbreviation, nor a frequent English word', () => {
  const terms = queryTerms('list issues');
  assert.equal(withAbbreviations(indexState(index), terms), terms);
  // "pot" is a word: no `pull ... transfer` reading for it.
  const pot = queryTerms('pot');
  assert.equal(withAbbreviations(indexState(index), pot), pot);
});

test('the expansion follows the catalog: a name added later is found by its initials', () => {
  const growing = buildToolIndex([tool('ops', 'restart', 'Restart it.')], { lexicon });
  assert.equal(searchTools(growing, 'scale the hpa', { topK: 1 }).length, 0);
  replaceBackendTools(growing, 'kube', [
    tool('kube', 'get_horizontal_pod_autoscaler', 'Read one autoscaler.'),
    tool('kube', 'scale_horizontal_pod_autoscaler', 'Change its replica bounds.'),
  ]);
  assert.equal(searchTools(growing, 'scale the hpa', { topK: 1 })[0]?.tool.name, 'scale_horizontal_pod_autoscaler');
});

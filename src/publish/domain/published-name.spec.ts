import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_PUBLISHED_NAME_CHARS, publishedName } from './published-name';

test('a short plain name is <backend>__<tool>', () => {
  assert.equal(publishedName('files', 'read_text_file'), 'files__read_text_file');
  assert.equal(publishedName('everything', 'get-sum'), 'everything__get-sum');
});

test('a long name is cut to 64 characters and ends with a hash of the whole name, the same every time', () => {
  const tool = `list_${'very_'.repeat(20)}long`;
  const name = publishedName('files', tool);
  assert.equal(name.length, MAX_PUBLISHED_NAME_CHARS);
  assert.match(name, /^files__list_very_very_.*_[0-9a-f]{10}$/);
  assert.equal(publishedName('files', tool), name);
  assert.notEqual(publishedName('files', `${tool}2`), name);
  assert.notEqual(publishedName('other', tool), name);
});

test('exactly 64 characters stays whole; 65 is shortened', () => {
  const at64 = 'a'.repeat(64 - 'files__'.length);
  assert.equal(publishedName('files', at64), `files__${at64}`);
  assert.equal(publishedName('files', `${at64}b`).length, 64);
  assert.notEqual(publishedName('files', `${at64}b`), `files__${at64}`);
});

test('characters model APIs refuse become _, and the hash keeps look-alikes apart', () => {
  const dotted = publishedName('docs', 'search.pages');
  const underscored = publishedName('docs', 'search_pages');
  assert.match(dotted, /^docs__search_pages_[0-9a-f]{10}$/);
  assert.equal(underscored, 'docs__search_pages');
  assert.notEqual(dotted, underscored);
  assert.match(publishedName('docs', 'büro/ä'), /^[A-Za-z0-9_-]+$/);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nameWords, normalizeTerm, queryTerms, tokenize } from './terms';

test('name words split a compound name without keeping it whole', () => {
  assert.deepEqual(nameWords('read_text_file getTinyImage'), ['read', 'text', 'file', 'get', 'tiny', 'image']);
  assert.deepEqual(tokenize('read_text_file').at(-1), 'read_text_file');
});

test('possessives and contractions fold before splitting', () => {
  assert.deepEqual(tokenize("the file's owner, don't"), ['the', 'file', 'owner', 'dont']);
});

test('a word glued to an escape of pasted text is also read without it, beside the glued word', () => {
  assert.deepEqual(tokenize(String.raw`colors: red\nblack\tGreen`), ['colors', 'red', 'nblack', 't', 'green', 'tgreen', 'black']);
  // A Windows path keeps its own words, with one more that matches nothing.
  assert.deepEqual(nameWords(String.raw`C:\notes`), ['c', 'notes', 'otes']);
});

test('normalization drops stop words and bare numbers, stems plain words, keeps compounds exact', () => {
  assert.equal(normalizeTerm('the'), null);
  assert.equal(normalizeTerm('please'), null);
  assert.equal(normalizeTerm('42'), null);
  assert.equal(normalizeTerm('photos'), 'photo');
  assert.equal(normalizeTerm('photographs'), normalizeTerm('photograph'));
  assert.equal(normalizeTerm('read_text_file'), 'read_text_file');
  assert.equal(normalizeTerm('config.yaml'), 'config.yaml');
  assert.equal(normalizeTerm('base64'), 'base64');
});

test('query terms: distinct, the written word kept for meanings, literals implied at half weight', () => {
  const terms = queryTerms('Open photo.jpg and the photos');
  const written = terms.filter((t) => !t.implied);
  assert.deepEqual(
    written.map((t) => [t.term, t.word, t.weight]),
    [
      ['open', 'open', 1],
      ['photo', 'photo', 1],
      ['jpg', 'jpg', 1],
      ['photo.jpg', undefined, 1],
    ],
  );
  const implied = terms.filter((t) => t.implied);
  assert.ok(
    implied.some((t) => t.word === 'image'),
    'a .jpg file implies an image',
  );
  assert.ok(implied.every((t) => t.weight === 0.5));
  assert.ok(
    implied.every((t) => !written.some((w) => w.term === t.term)),
    'a term written and implied counts once, as written',
  );
});

test('a number in a query implies the word "number", not a term of its own', () => {
  const terms = queryTerms('add 12 and 30');
  assert.deepEqual(
    terms.map((t) => [t.term, t.implied]),
    [
      ['add', false],
      ['number', true],
    ],
  );
});

test('a query is bounded in terms, however long', () => {
  const words = Array.from({ length: 50 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
  assert.equal(queryTerms(words.join(' ')).length, 32);
  assert.ok(queryTerms('x'.repeat(100_000)).length <= 32);
});

test('a query of stop words only has no terms', () => {
  assert.deepEqual(queryTerms('what is the'), []);
  assert.deepEqual(queryTerms(''), []);
});

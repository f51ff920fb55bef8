import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadLexicon } from '../lexicon';
import { isKnownWord, relatedTerms, requestWordWeight, type CatalogWords } from './related-terms';
import { vocabularyVectors } from './semantic';
import { normalizeTerm } from './terms';

// The real prepared data, as in semantic.spec.ts: what is asserted is what WordNet and GloVe say.
const lexicon = loadLexicon();

/** A catalog of these plain words, as the index presents it to the ranking. */
function catalogOf(words: readonly string[]): CatalogWords {
  const terms = new Set(words.map(normalizeTerm));
  const vectors = vocabularyVectors(lexicon, words);
  return { hasTerm: (term) => terms.has(term), wordVectors: () => vectors };
}

const CATALOG = catalogOf(['image', 'picture', 'file', 'directory', 'sum', 'add', 'memory', 'entity', 'relation', 'message', 'remove', 'deletion', 'invoice']);

test('a word finds catalog terms related by meaning, each counting for less than the word itself', () => {
  const remember = relatedTerms(lexicon, 'remember', CATALOG);
  assert.ok(
    remember.some((t) => t.term === normalizeTerm('memory')),
    '"remember" finds memory',
  );
  assert.ok(
    relatedTerms(lexicon, 'folder', CATALOG).some((t) => t.term === normalizeTerm('directory')),
    '"folder" finds directory',
  );
  for (const word of ['remember', 'folder', 'photo', 'delete']) {
    for (const { term, weight } of relatedTerms(lexicon, word, CATALOG)) {
      assert.ok(CATALOG.hasTerm(term), `${word} → ${term} is a catalog term`);
      assert.ok(weight > 0 && weight < 1, `${word} → ${term} weighs ${weight}`);
      assert.ok(!term.includes(' '), 'multi-word lemmas are not terms');
    }
  }
});

test('a WordNet synonym counts 0.3, and a term reached twice keeps its best weight, once', () => {
  assert.deepEqual(relatedTerms(lexicon, 'sum', CATALOG), [{ term: normalizeTerm('add'), weight: 0.3 }]);
  const photo = relatedTerms(lexicon, 'photo', CATALOG);
  assert.equal(photo.find((t) => t.term === normalizeTerm('picture'))?.weight, 0.3);
  assert.equal(new Set(photo.map((t) => t.term)).size, photo.length);
});

test("the word's own term is left out, even when a relation leads back to it", () => {
  // "deletion" is a derivation of "delete" and stems to the same term.
  assert.ok(!relatedTerms(lexicon, 'delete', CATALOG).some((t) => t.term === normalizeTerm('delete')));
});

test('nothing is related in a catalog without the words, or to a word the lexicon does not know', () => {
  assert.deepEqual(relatedTerms(lexicon, 'folder', catalogOf([])), []);
  assert.deepEqual(relatedTerms(lexicon, 'qzxvqzxv', CATALOG), []);
});

test('a very common English word counts less in a request than a rarer one', () => {
  assert.equal(requestWordWeight(lexicon, 'get'), 0.7);
  assert.equal(requestWordWeight(lexicon, 'invoice'), 1);
  assert.equal(requestWordWeight(lexicon, 'qzxvqzxv'), 1);
});

test('a known word is one the lexicon has a vector or a WordNet lemma for', () => {
  assert.equal(isKnownWord(lexicon, 'invoice'), true);
  assert.equal(isKnownWord(lexicon, 'remembered'), true);
  assert.equal(isKnownWord(lexicon, 'qzxvqzxv'), false);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { learnedWords, MAX_LEARNED_WORDS } from './learned-words';

test("a request's own terms, each once, bounded; implied ones left out", () => {
  assert.deepEqual(
    learnedWords([
      { term: 'sum', implied: false },
      { term: 'number', implied: true },
      { term: 'sum', implied: false },
    ]),
    ['sum'],
  );
  const many = Array.from({ length: 40 }, (_, i) => ({ term: `w${i}`, implied: false }));
  assert.equal(learnedWords(many).length, MAX_LEARNED_WORDS);
});

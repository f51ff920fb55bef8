/**
 * The words of the tool catalog and of `find_tool` queries, normalized the same way on both sides
 * (DESIGN §1): split at code-name boundaries, stop words dropped, plurals and a few synonyms
 * folded. Pure: no I/O, no clock, no environment. Measured with the ranking against
 * `test/find-tool-queries.json`; change a word list only with that test's numbers.
 */

/** A query is a few words; bounding the terms bounds the work of fuzzy matching a pasted essay. */
const MAX_QUERY_TERMS = 32;
const MAX_QUERY_CHARS = 1000;

/**
 * A small English stop-word list: function words that say nothing about which tool is meant,
 * plus the filler of a request ("please", "want", "need").
 */
const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'and', 'or', 'but', 'of', 'to', 'in', 'on', 'at', 'by', 'for', 'with', 'from',
  'into', 'onto', 'as', 'is', 'are', 'was', 'were', 'be', 'been', 'being', 'am', 'do', 'does',
  'did', 'it', 'its', 'this', 'that', 'these', 'those', 'there', 'here', 'i', 'me', 'my', 'we',
  'us', 'our', 'you', 'your', 'he', 'she', 'they', 'them', 'their', 'what', 'which', 'who',
  'whom', 'how', 'can', 'could', 'would', 'should', 'will', 'shall', 'may', 'might', 'must',
  'please', 'want', 'need', 'some', 'any', 'all', 'so', 'if', 'then', 'than', 'just', 'also',
  'not', 'no',
]);

/**
 * Synonym folds: each word on the left is indexed and searched as the word on the right, so a
 * query in a user's words meets a description in the author's. Limited to the verbs and nouns of
 * tool catalogs (CRUD verbs, file-system nouns, the shell's names for them), one meaning each;
 * groups that did not move the query set (get, open, edit, move, image, env) were left out.
 * Folding runs after plural folding, so "folders" folds too.
 */
const SYNONYMS: ReadonlyMap<string, string> = new Map([
  ['folder', 'directory'],
  ['dir', 'directory'],
  ['subfolder', 'subdirectory'],
  ['ls', 'list'],
  ['show', 'read'],
  ['view', 'read'],
  ['display', 'read'],
  ['cat', 'read'],
  ['find', 'search'],
  ['lookup', 'search'],
  ['look', 'search'],
  ['locate', 'search'],
  ['grep', 'search'],
  ['query', 'search'],
  ['remove', 'delete'],
  ['rm', 'delete'],
  ['erase', 'delete'],
  ['forget', 'delete'],
  ['drop', 'delete'],
  ['make', 'create'],
  ['mkdir', 'create'],
  ['save', 'write'],
  ['relationship', 'relation'],
]);

/**
 * Splits text into lowercase terms: on whitespace and punctuation, at snake_case, kebab-case,
 * dots, camelCase and letter/digit boundaries. A compound word (`read_text_file`,
 * `getTinyImage`, `config.yaml`) is also kept whole, lowercased, so an exact tool name typed
 * into a query matches that tool's name best.
 */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  // Possessives and contractions: "file's" → "file", "don't" → "dont".
  const cleaned = text.replace(/['’]s\b/gu, '').replace(/['’]/gu, '');
  for (const chunk of cleaned.split(/[\s,;:!?()[\]{}<>"`|/\\=+*&^%$#@~]+/u)) {
    const word = chunk.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (word === '') continue;
    const parts = splitWord(word);
    terms.push(...parts);
    if (parts.length > 1) terms.push(word.toLowerCase());
  }
  return terms;
}

function splitWord(word: string): string[] {
  // Most words of a description are plain lowercase: skip the boundary rewriting for them.
  if (/^\p{Ll}+$/u.test(word)) return [word];
  return word
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})/gu, '$1 $2')
    .replace(/(\p{N})(\p{L})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((part) => part !== '')
    .map((part) => part.toLowerCase());
}

/**
 * Normalizes one term, the same way at index and at query time: stop words drop out, plurals
 * fold to the singular, synonyms to their canonical word. Compound terms (whole names) are kept
 * as they are so an exact name stays exact.
 */
export function normalizeTerm(term: string): string | null {
  if (STOP_WORDS.has(term)) return null;
  if (!/^[\p{L}\p{N}]+$/u.test(term)) return term;
  const singular = singularize(term);
  return SYNONYMS.get(singular) ?? singular;
}

/** English plural folding, deliberately light: "entities" → "entity", "matches" → "match", "files" → "file". */
function singularize(term: string): string {
  if (term.length <= 3) return term;
  if (term.endsWith('ies') && term.length > 4) return `${term.slice(0, -3)}y`;
  if (/(?:ss|ch|sh|x)es$/u.test(term)) return term.slice(0, -2);
  if (/(?:ss|us|is)$/u.test(term)) return term;
  if (term.endsWith('s')) return term.slice(0, -1);
  return term;
}


/** The query's distinct normalized terms, bounded (see MAX_QUERY_TERMS). */
export function queryTerms(query: string): string[] {
  const terms = new Set<string>();
  for (const token of tokenize(query.slice(0, MAX_QUERY_CHARS))) {
    const term = normalizeTerm(token);
    if (term !== null) terms.add(term);
    if (terms.size >= MAX_QUERY_TERMS) break;
  }
  return [...terms];
}

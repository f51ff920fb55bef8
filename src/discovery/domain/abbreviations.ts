import { rowOf } from './semantic';
import { normalizeTerm, type QueryTerm } from './terms';
import type { IndexState } from './tool-index';

/**
 * Abbreviations in a `find_tool` request (architecture §1): "prs" for pull requests, "mkdir" for
 * creating a directory. Two general sources, no rule naming a query or a tool:
 *
 * - the catalog's own names: a short word the catalog does not have that spells the initials of
 *   adjacent words of its tool names (`create_pull_request` → "pr", and "prs" for the plural)
 *   stands for those words;
 * - a small table of common computing abbreviations and Unix command names ({@link COMMON_ABBREVIATIONS}),
 *   which a catalog rarely spells out as initials.
 *
 * Pure: no I/O, no clock.
 */

/**
 * Common computing abbreviations and Unix command names, each with the words it stands for. A
 * short, general list of what developers type for an operation or an object; the words are
 * ordinary English, so the lexicon's related words (`delete` → `remove`) still apply to them.
 */
export const COMMON_ABBREVIATIONS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    ls: 'list',
    rm: 'delete',
    rmdir: 'delete directory',
    mv: 'move',
    cp: 'copy',
    cat: 'read',
    grep: 'search',
    mkdir: 'create directory',
    pwd: 'current directory',
    cd: 'change directory',
    db: 'database',
    repo: 'repository',
    env: 'environment',
    cfg: 'configuration',
    msg: 'message',
    pr: 'pull request',
    k8s: 'kubernetes',
    dir: 'directory',
    doc: 'document',
    docs: 'documentation',
    repos: 'repositories',
    dbs: 'databases',
    prs: 'pull requests',
    msgs: 'messages',
    envs: 'environments',
    dirs: 'directories',
    imgs: 'images',
    img: 'image',
    pic: 'picture',
    auth: 'authentication',
    dm: 'direct message',
    dns: 'domain name',
    ci: 'continuous integration',
    vm: 'virtual machine',
    tz: 'timezone',
    qty: 'quantity',
    addr: 'address',
  }),
);

/** Initials are looked for in this many adjacent name words at most (and two at least). */
const MAX_PHRASE_WORDS = 4;
/** A word this short or long is not read as initials. */
const MIN_INITIALS = 2;
const MAX_INITIALS = MAX_PHRASE_WORDS;
/**
 * A phrase is read as initials only when at least this many tool names hold it: a term the catalog
 * names tools by recurs (`pull request` in a code host's tools), where a one-off run of words
 * ("to human time headway") spelling a short word is chance.
 */
const MIN_TOOLS = 2;
/** Phrases a word's initials may stand for, the most used first: more is a guess. */
const MAX_PHRASES = 2;

/**
 * The phrases of adjacent name words (function words excluded) whose initials `word` spells, from
 * 2 to {@link MAX_PHRASE_WORDS} words ("prs" and "pr" → `pull request`), the most used first, and
 * only those at least {@link MIN_TOOLS} tool names hold. `names` are the tools' name words in order
 * (`create_pull_request` → `create`, `pull`, `request`). One pass over the names, comparing first
 * letters: no index of every run of words is kept.
 */
export function initialsOf(names: Iterable<readonly string[]>, word: string): string[] {
  // Initials are letters: "s3" or "v2" is a name, not a phrase.
  if (!/^[a-z]+$/.test(word)) return [];
  const keys = word.length > MIN_INITIALS && word.endsWith('s') ? [word, word.slice(0, -1)] : [word];
  for (const key of keys) {
    if (key.length < MIN_INITIALS || key.length > MAX_INITIALS) continue;
    // By the phrase's terms: `pull requests` and `pull request` are one phrase.
    const phrases = new Map<string, { words: string; tools: number }>();
    for (const words of names) {
      let seen: Set<string> | undefined;
      for (let start = 0; start + key.length <= words.length; start += 1) {
        if (words[start][0] !== key[0]) continue;
        let at = 0;
        while (at < key.length && words[start + at][0] === key[at]) at += 1;
        if (at < key.length) continue;
        const run = words.slice(start, start + key.length);
        const terms = run.map((w) => (/^[a-z]{2,}$/.test(w) ? normalizeTerm(w) : null));
        // Function words ("to", "of") are not abbreviated: `transfer_to_human` spells no "th".
        if (terms.includes(null)) continue;
        const id = terms.join(' ');
        if (seen?.has(id) === true) continue;
        (seen ??= new Set()).add(id);
        const phrase = phrases.get(id);
        if (phrase === undefined) phrases.set(id, { words: run.join(' '), tools: 1 });
        else phrase.tools += 1;
      }
    }
    const found = [...phrases.values()]
      .filter(({ tools }) => tools >= MIN_TOOLS)
      .sort((a, b) => b.tools - a.tools || (a.words < b.words ? -1 : a.words > b.words ? 1 : 0))
      .slice(0, MAX_PHRASES)
      .map(({ words }) => words);
    if (found.length > 0) return found;
  }
  return [];
}

/** The words a common abbreviation stands for ({@link COMMON_ABBREVIATIONS}), plurals listed as their own entries ("repos"): a command's name has none. */
export function commonAbbreviation(word: string): string | undefined {
  return COMMON_ABBREVIATIONS.get(word);
}

/**
 * How much each word of initials counts, against 1 for a word the request wrote: the reading is a
 * guess, and a phrase's words add up (on the tune parts 0.6 and 1 differed by one bfcl-live query,
 * for 0.6). A command name or a common abbreviation means its words: they count in full.
 */
const INITIALS_WEIGHT = 0.6;
const COMMON_WEIGHT = 1;
/**
 * Words this frequent in English (rank in the lexicon's word list) are words, not initials: "go",
 * "add" or "fix" missing from a catalog is no reason to read them as `get_object`. On the tune
 * parts, 5,000 let "mc", "pg", "pa" expand in bfcl-live and lowered its recall@5 by 0.002; with
 * 20,000 no set moved (BENCHMARKS.md "Abbreviations and misspellings").
 */
const FREQUENT_WORDS = 20_000;

/**
 * The query's terms with each abbreviation the catalog does not know replaced by the words it
 * stands for (a common abbreviation first, else the initials of the catalog's name words), each
 * counting {@link ABBREVIATION_WEIGHT} of the abbreviation. A term the catalog has is kept as it
 * is: there it is a word of the catalog, whatever else it abbreviates.
 */
export function withAbbreviations(state: IndexState, terms: readonly QueryTerm[]): readonly QueryTerm[] {
  let expanded: QueryTerm[] | undefined;
  for (let i = 0; i < terms.length; i += 1) {
    const term = terms[i];
    const { words, weight } = term.implied || state.postings.has(term.term) ? NOT_ONE : abbreviationWords(state, term.word ?? term.term);
    if (words.length === 0) {
      expanded?.push(term);
      continue;
    }
    expanded ??= terms.slice(0, i);
    for (const word of words) {
      const normalized = normalizeTerm(word);
      if (normalized === null || terms.some((t) => t.term === normalized) || expanded.some((t) => t.term === normalized)) continue;
      expanded.push({ term: normalized, word, weight: term.weight * weight, implied: false });
    }
  }
  return expanded ?? terms;
}

/** What a request word abbreviates: the words it stands for (none: not an abbreviation), and their weight. */
export interface Abbreviation {
  readonly words: readonly string[];
  readonly weight: number;
}

const NOT_ONE: Abbreviation = { words: [], weight: 0 };

function abbreviationWords(state: IndexState, key: string): Abbreviation {
  const cached = state.abbreviations.get(key);
  if (cached !== undefined) return cached;
  let found = NOT_ONE;
  const common = commonAbbreviation(key);
  if (common !== undefined) found = { words: common.split(' '), weight: COMMON_WEIGHT };
  else if (!/^[a-z]+$/.test(key) || state.lexicon === undefined || (rowOf(state.lexicon, key) ?? Infinity) >= FREQUENT_WORDS) {
    const names = [...state.byId.values()].map((doc) => doc.nameWords);
    found = { words: initialsOf(names, key).flatMap((phrase) => phrase.split(' ')), weight: INITIALS_WEIGHT };
  }
  // Words are the caller's: a stream of made-up ones must not grow the cache without bound.
  if (state.abbreviations.size >= MAX_CACHED_WORDS) state.abbreviations.clear();
  state.abbreviations.set(key, found);
  return found;
}

const MAX_CACHED_WORDS = 20_000;

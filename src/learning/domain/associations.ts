/**
 * What `find_tool` learns from use (architecture §1.2): which request words led which principals
 * to call which tools. Pure: no I/O, no clock (times are passed in), no environment.
 *
 * Only normalized words (the ranking's stemmed terms), tool keys (`backend NUL name`), a digest
 * of each tool's definition and a short digest of each principal's id are held: never a request's
 * text or a call's arguments.
 */

/** One word of a `find_tool` request paired with the tool the same principal then called. */
export interface Observation {
  readonly word: string;
  /** `backend NUL name`. */
  readonly tool: string;
  /** Digest of the tool's definition when it was called: a changed definition forgets the tool. */
  readonly definition: string;
  /** Short one-way digest of the principal's id: only distinct principals are counted. */
  readonly principal: string;
  readonly atMs: number;
}

/** How much is learned and how long it lasts. */
export interface LearningLimits {
  /** An association is used once this many distinct principals made it. */
  readonly minPrincipals: number;
  /** A principal's part in an association halves in this time. */
  readonly halfLifeMs: number;
  /** Word-tool associations kept; past it the least recently made go first. */
  readonly maxAssociations: number;
}

/** Principals remembered per association: past the threshold more say little more. */
export const MAX_PRINCIPALS_PER_ASSOCIATION = 16;

/**
 * Tools the ranking reads per word, the strongest first: a word that led to more says little about
 * each of them (its weight is shared among all), and a query reads at most this many per word.
 */
const MAX_TOOLS_PER_WORD = 20;

/** A principal's part is forgotten below this share (after about seven half-lives). */
const FORGOTTEN_BELOW = 1 / 128;

/** Separates word, tool and principal in keys; none of them can hold it. */
const SEP = '\u0001';

/** One word-tool association: each principal who made it, with when they last did. */
interface Association {
  readonly word: string;
  readonly tool: string;
  readonly principals: Map<string, number>;
  lastMs: number;
}

/** An association as `learning list` shows it. */
export interface AssociationView {
  readonly word: string;
  readonly tool: string;
  readonly principals: number;
  readonly strength: number;
  readonly active: boolean;
  readonly lastMs: number;
}

/** A tool the ranking may lift for a word, and by how much (0..1). */
export interface LearnedTool {
  readonly tool: string;
  readonly weight: number;
}

/**
 * What the ranking reads: per word, the tools learned for it, from associations made by at least
 * `minPrincipals` principals. `version` changes whenever what it says does.
 */
export interface LearnedSignal {
  readonly version: number;
  readonly byWord: ReadonlyMap<string, readonly LearnedTool[]>;
  /** Per word, its associations in use (`byWord` holds the strongest of them only). */
  readonly inUse: ReadonlyMap<string, number>;
  /** Associations in use. */
  readonly size: number;
}

export const NO_SIGNAL: LearnedSignal = { version: 0, byWord: new Map(), inUse: new Map(), size: 0 };

/**
 * Strength of an association is the sum of its principals' decayed parts; the ranking uses
 * strength / (strength + this), so one association made by a few principals counts a little and
 * one made by many approaches its whole weight.
 */
const SATURATION = 2;

/** The learned associations; bounded, decaying, with every tool's definition digest. */
export class Associations {
  private readonly byKey = new Map<string, Association>();
  /** The associations of each word, for refreshing one word's part of the signal. */
  private readonly byWord = new Map<string, Set<Association>>();
  private readonly definitions = new Map<string, string>();

  constructor(private readonly limits: LearningLimits) {}

  /**
   * Adds observations; a tool observed with another definition first forgets what it had. True
   * when an association that may be in use was dropped on the way (a changed definition, the
   * bound): then more than the observed words' part of the signal changed.
   */
  observe(observations: readonly Observation[]): boolean {
    let reshaped = false;
    for (const o of observations) {
      const known = this.definitions.get(o.tool);
      if (known !== undefined && known !== o.definition) reshaped = this.forget((tool) => tool === o.tool) > 0 || reshaped;
      this.definitions.set(o.tool, o.definition);
      const key = `${o.word}${SEP}${o.tool}`;
      let association = this.byKey.get(key);
      if (association === undefined) {
        association = { word: o.word, tool: o.tool, principals: new Map(), lastMs: o.atMs };
        const ofWord = this.byWord.get(o.word);
        if (ofWord === undefined) this.byWord.set(o.word, new Set([association]));
        else ofWord.add(association);
      } else {
        // Re-inserted last: the map's order is least recently made first.
        this.byKey.delete(key);
      }
      this.byKey.set(key, association);
      association.lastMs = Math.max(association.lastMs, o.atMs);
      const before = association.principals.get(o.principal) ?? 0;
      // Re-inserted last here too: the principal heard from longest ago goes first.
      association.principals.delete(o.principal);
      association.principals.set(o.principal, Math.max(o.atMs, before));
      if (association.principals.size > MAX_PRINCIPALS_PER_ASSOCIATION) {
        association.principals.delete(association.principals.keys().next().value as string);
      }
    }
    while (this.byKey.size > this.limits.maxAssociations) {
      const oldest = this.byKey.keys().next().value as string;
      if ((this.byKey.get(oldest)?.principals.size ?? 0) >= this.limits.minPrincipals) reshaped = true;
      this.drop(oldest);
    }
    return reshaped;
  }

  /** Forgets every association of the tools `matches` admits; answers how many were forgotten. */
  forget(matches: (tool: string) => boolean): number {
    let forgotten = 0;
    for (const [key, association] of this.byKey) {
      if (!matches(association.tool)) continue;
      this.drop(key);
      forgotten += 1;
    }
    for (const tool of [...this.definitions.keys()]) if (matches(tool)) this.definitions.delete(tool);
    return forgotten;
  }

  /** The tools whose recorded definition is not `current(tool)` (undefined: not in the catalog now, kept). */
  changedTools(current: (tool: string) => string | undefined): string[] {
    const changed: string[] = [];
    for (const [tool, definition] of this.definitions) {
      const now = current(tool);
      if (now !== undefined && now !== definition) changed.push(tool);
    }
    return changed;
  }

  /** Drops principals' parts that have decayed away, and associations left with none. */
  prune(nowMs: number): void {
    for (const [key, association] of this.byKey) {
      for (const [principal, atMs] of association.principals) {
        if (this.share(nowMs, atMs) < FORGOTTEN_BELOW) association.principals.delete(principal);
      }
      if (association.principals.size === 0) this.drop(key);
    }
  }

  /** Every association, the most recently made first. */
  list(nowMs: number): AssociationView[] {
    return [...this.byKey.values()].reverse().map((a) => {
      const principals = this.livePrincipals(a, nowMs);
      return {
        word: a.word,
        tool: a.tool,
        principals,
        strength: round(this.strength(a, nowMs)),
        active: principals >= this.limits.minPrincipals,
        lastMs: a.lastMs,
      };
    });
  }

  /** Every observation held, for a store to write out: one per association and principal. */
  observations(): Observation[] {
    const out: Observation[] = [];
    for (const a of this.byKey.values()) {
      const definition = this.definitions.get(a.tool) ?? '';
      for (const [principal, atMs] of a.principals) out.push({ word: a.word, tool: a.tool, definition, principal, atMs });
    }
    return out;
  }

  get size(): number {
    return this.byKey.size;
  }

  /**
   * The signal the ranking reads at `nowMs`: for each word, the tools of its active associations,
   * each weighted by its share of the word's strength (a word that led to many tools says little
   * about each) times its saturated strength.
   */
  signal(nowMs: number, version: number): LearnedSignal {
    const byWord = new Map<string, readonly LearnedTool[]>();
    const inUse = new Map<string, number>();
    let size = 0;
    for (const word of this.byWord.keys()) size += this.signalOf(word, nowMs, byWord, inUse);
    return { version, byWord, inUse, size };
  }

  /**
   * `signal` with only `words` worked out again (the words just observed), at the cost of those
   * words alone: its maps are updated in place and a new version answered.
   */
  refresh(signal: LearnedSignal, words: Iterable<string>, nowMs: number): LearnedSignal {
    const byWord = signal.byWord as Map<string, readonly LearnedTool[]>;
    const inUse = signal.inUse as Map<string, number>;
    let size = signal.size;
    for (const word of new Set(words)) {
      size -= inUse.get(word) ?? 0;
      byWord.delete(word);
      inUse.delete(word);
      size += this.signalOf(word, nowMs, byWord, inUse);
    }
    return { version: signal.version + 1, byWord, inUse, size };
  }

  /** One word's part of the signal, set into the maps; answers its associations in use. */
  private signalOf(word: string, nowMs: number, byWord: Map<string, readonly LearnedTool[]>, inUse: Map<string, number>): number {
    const list: { tool: string; strength: number }[] = [];
    for (const a of this.byWord.get(word) ?? []) {
      let live = 0;
      let strength = 0;
      for (const atMs of a.principals.values()) {
        const share = this.share(nowMs, atMs);
        if (share < FORGOTTEN_BELOW) continue;
        live += 1;
        strength += share;
      }
      if (live >= this.limits.minPrincipals) list.push({ tool: a.tool, strength });
    }
    if (list.length === 0) return 0;
    const total = list.reduce((sum, t) => sum + t.strength, 0);
    const strongest = list.length <= MAX_TOOLS_PER_WORD ? list : list.sort((x, y) => y.strength - x.strength).slice(0, MAX_TOOLS_PER_WORD);
    byWord.set(
      word,
      strongest.map((t) => ({ tool: t.tool, weight: (t.strength / total) * (t.strength / (t.strength + SATURATION)) })),
    );
    inUse.set(word, list.length);
    return list.length;
  }

  private drop(key: string): void {
    const association = this.byKey.get(key);
    if (association === undefined) return;
    this.byKey.delete(key);
    const ofWord = this.byWord.get(association.word);
    ofWord?.delete(association);
    if (ofWord?.size === 0) this.byWord.delete(association.word);
  }

  private livePrincipals(a: Association, nowMs: number): number {
    let live = 0;
    for (const atMs of a.principals.values()) if (this.share(nowMs, atMs) >= FORGOTTEN_BELOW) live += 1;
    return live;
  }

  private strength(a: Association, nowMs: number): number {
    let sum = 0;
    for (const atMs of a.principals.values()) sum += this.share(nowMs, atMs);
    return sum;
  }

  private share(nowMs: number, atMs: number): number {
    return Math.pow(0.5, Math.max(0, nowMs - atMs) / this.limits.halfLifeMs);
  }
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** Per tool key, the sum over `words` of the weights learned for it. */
export function learnedScores(signal: LearnedSignal, words: readonly string[]): Map<string, number> {
  const scores = new Map<string, number>();
  if (signal.size === 0) return scores;
  for (const word of words) {
    for (const { tool, weight } of signal.byWord.get(word) ?? []) scores.set(tool, (scores.get(tool) ?? 0) + weight);
  }
  return scores;
}

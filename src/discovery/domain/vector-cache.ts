/**
 * What `find_tool`'s dense ranking keeps of an embeddings endpoint's answers (`discovery.embeddings`): the
 * catalog's tool vectors, keyed by a hash of the text embedded, and a bounded cache of query
 * vectors. Pure: no I/O, no clock.
 */

/** A map bounded to `capacity` entries; the least recently used goes first. */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Re-inserting moves the key to the end of the Map's order: the most recently used.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }

  delete(key: K): V | undefined {
    const value = this.entries.get(key);
    this.entries.delete(key);
    return value;
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

/** One tool of a backend's catalog as the store knows it: its name and the text to embed. */
export interface ToolText {
  name: string;
  /** Identifies `text` (its SHA-256): equal keys, equal texts, one vector. */
  key: string;
  text: string;
}

interface Entry {
  text: string;
  /** Number of catalog tools (over every backend) whose text this is. */
  refs: number;
  vector?: Float32Array;
}

/**
 * The vectors of the catalog's tools. A vector belongs to a text, not to a tool: tools with the
 * same text (the same tool served by two backends, or a tool unchanged by a refresh) share one,
 * so an unchanged tool is never embedded twice. A text no tool uses any more is kept a while in
 * a bounded LRU (`retired`), so a tool that leaves and comes back is not embedded again either.
 * Every vector has the same length (`dimension`); {@link reset} drops them all when the model
 * behind the endpoint changes.
 */
export class ToolVectorStore {
  private readonly entries = new Map<string, Entry>();
  private readonly byBackend = new Map<string, Map<string, string>>();
  private readonly retired: LruCache<string, { text: string; vector: Float32Array }>;
  private dimensions: number | undefined;
  private withVector = 0;

  constructor(retiredCapacity: number) {
    this.retired = new LruCache(retiredCapacity);
  }

  /** Replaces one backend's tools. Texts seen before (by any backend, or retired) keep their vector. */
  setBackend(backend: string, tools: readonly ToolText[]): void {
    const previous = this.byBackend.get(backend) ?? new Map<string, string>();
    const next = new Map<string, string>();
    for (const tool of tools) {
      if (next.has(tool.name)) continue;
      next.set(tool.name, tool.key);
      this.retain(tool.key, tool.text);
    }
    for (const key of previous.values()) this.release(key);
    if (next.size === 0) this.byBackend.delete(backend);
    else this.byBackend.set(backend, next);
  }

  /** The vector of a backend's tool, when its text has been embedded. */
  vectorOf(backend: string, name: string): Float32Array | undefined {
    const key = this.byBackend.get(backend)?.get(name);
    return key === undefined ? undefined : this.entries.get(key)?.vector;
  }

  /**
   * Texts some tool uses that have no vector yet, at most `limit`, in the order they arrived,
   * leaving out those `skip` names.
   */
  missing(limit: number, skip?: (key: string) => boolean): { key: string; text: string }[] {
    const out: { key: string; text: string }[] = [];
    for (const [key, entry] of this.entries) {
      if (out.length >= limit) break;
      if (entry.vector === undefined && (skip === undefined || !skip(key))) out.push({ key, text: entry.text });
    }
    return out;
  }

  /**
   * Stores the vector of `key`'s text. A vector of another length than those stored means the
   * model changed: every vector is dropped first (see {@link reset}), and `true` is answered so
   * the caller embeds the catalog again. A text no tool uses any more is not kept.
   */
  put(key: string, vector: Float32Array): boolean {
    let reset = false;
    if (this.dimensions !== undefined && this.dimensions !== vector.length) {
      this.reset();
      reset = true;
    }
    const entry = this.entries.get(key);
    if (entry === undefined) return reset;
    this.dimensions = vector.length;
    if (entry.vector === undefined) this.withVector += 1;
    entry.vector = vector;
    return reset;
  }

  /** Drops every vector (the texts stay, so {@link missing} lists them all again). */
  reset(): void {
    for (const entry of this.entries.values()) entry.vector = undefined;
    this.retired.clear();
    this.dimensions = undefined;
    this.withVector = 0;
  }

  /** Length of every stored vector; undefined while none is stored. */
  get dimension(): number | undefined {
    return this.dimensions;
  }

  /** Distinct texts with a vector. */
  get embeddedTexts(): number {
    return this.withVector;
  }

  /** Catalog tools (over every backend) whose text has a vector. */
  embeddedTools(): number {
    let count = 0;
    for (const keys of this.byBackend.values()) for (const key of keys.values()) if (this.entries.get(key)?.vector !== undefined) count += 1;
    return count;
  }

  private retain(key: string, text: string): void {
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      entry.refs += 1;
      return;
    }
    const retired = this.retired.delete(key);
    const vector = retired !== undefined && retired.vector.length === this.dimensions ? retired.vector : undefined;
    this.entries.set(key, { text, refs: 1, ...(vector !== undefined ? { vector } : {}) });
    if (vector !== undefined) this.withVector += 1;
  }

  private release(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    entry.refs -= 1;
    if (entry.refs > 0) return;
    this.entries.delete(key);
    if (entry.vector === undefined) return;
    this.withVector -= 1;
    this.retired.set(key, { text: entry.text, vector: entry.vector });
  }
}

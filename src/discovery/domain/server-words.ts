import { nameWords, normalizeTerm } from './terms';
import type { IndexedTool, IndexState } from './tool-index';

/**
 * Words that only name a server (architecture §1.1): a term of a backend's name ("github" in
 * `github`, "yahoo" and "finance" in `mcp-yahoo-finance`) that no tool's name holds. In a request
 * such a word says which server is meant, not which of its tools: every tool of the server carries
 * it in its backend field, and the one tool that also mentions it in its description ("Search
 * GitHub for ...") has done nothing to earn more of it than its neighbours. Pure: no I/O.
 */

/** Per term that only names servers, the backends whose name holds it. */
export type ServerWords = ReadonlyMap<string, ReadonlySet<string>>;

/** The terms of the catalog's backend names that no tool's name holds, each with its backends. */
export function serverWords(state: IndexState): ServerWords {
  if (state.serverWords !== undefined) return state.serverWords;
  const found = new Map<string, Set<string>>();
  for (const backend of state.byBackend.keys()) {
    for (const word of nameWords(backend)) {
      const term = normalizeTerm(word);
      if (term === null) continue;
      const backends = found.get(term);
      if (backends !== undefined) backends.add(backend);
      else if (!inSomeName(state, term)) found.set(term, new Set([backend]));
    }
  }
  state.serverWords = found;
  return found;
}

function inSomeName(state: IndexState, term: string): boolean {
  for (const doc of state.postings.get(term) ?? []) if (doc.nameTerms.includes(term)) return true;
  return false;
}

/**
 * A term's BM25F values (one per tool of `docs`) as evidence for servers when the term only names
 * servers: each tool of a named server gets the same value, the best any of them had, so the word
 * lifts the server as a group and its other words choose the tool. Tools of other servers keep
 * theirs (a tool elsewhere that names the server, "import from GitHub", is about it). Other terms'
 * values are left as they are. In place.
 *
 * On the tune parts (BENCHMARKS.md "Discovery"), the best value, the least value (only the
 * backend field) and half the best scored alike, and all above the word as before; one and a half
 * and twice the best lowered MRR@10; dropping what other servers' tools get changed nothing.
 */
export function asServerWord(state: IndexState, term: string, docs: readonly IndexedTool[], values: Float64Array): void {
  const backends = serverWords(state).get(term);
  if (backends === undefined) return;
  const best = new Map<string, number>();
  docs.forEach((doc, i) => {
    const backend = doc.tool.backend;
    if (backends.has(backend) && values[i] > (best.get(backend) ?? 0)) best.set(backend, values[i]);
  });
  docs.forEach((doc, i) => {
    const value = best.get(doc.tool.backend);
    if (value !== undefined) values[i] = value;
  });
}

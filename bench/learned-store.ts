import { writeFileSync } from 'node:fs';
import type { CatalogTool } from '../src/registry/registry.types';
import { learnedWords } from '../src/learning/domain/learned-words';
import type { Observation } from '../src/learning/domain/associations';
import { serializeLearned } from '../src/learning/domain/learned-file';
import { queryTerms } from '../src/discovery/domain/terms';
import { definitionOf, pinOf } from '../src/trust/domain/pin';

/**
 * A `store: file` learning file for a benchmark router, as traffic would have left it: `count`
 * word-tool associations over `tools`, each made by three principals (so each is in use), half of
 * them with the tools' own description words and half with made-up jargon, all made just now.
 * The definition digests are the tools' own, so the router keeps them at its first catalog
 * refresh. Returns the number of associations written.
 */
export function writeLearnedStore(path: string, tools: readonly CatalogTool[], count: number, nowMs: number): number {
  const words = [...new Set(tools.flatMap((t) => learnedWords(queryTerms(t.description))))];
  const digests = new Map<CatalogTool, string>();
  const observations: Observation[] = [];
  const pairs = new Set<string>();
  for (let i = 0; i < count; i += 1) {
    const tool = tools[(i * 7919) % tools.length];
    const word = i % 2 === 0 ? words[i % words.length] : `jargon${i % 5000}`;
    const key = `${tool.backend}\u0000${tool.name}`;
    pairs.add(`${word} ${key}`);
    let definition = digests.get(tool);
    if (definition === undefined) {
      definition = pinOf(definitionOf(tool)).slice(0, 16);
      digests.set(tool, definition);
    }
    for (const principal of ['bench-p1', 'bench-p2', 'bench-p3']) observations.push({ word, tool: key, definition, principal, atMs: nowMs - count + i });
  }
  writeFileSync(path, serializeLearned(observations));
  return pairs.size;
}

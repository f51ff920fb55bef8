import { createHash } from 'node:crypto';
import { queryTerms } from '../src/discovery/domain/terms';
import { Associations, type LearnedSignal, type Observation } from '../src/learning/domain/associations';
import { learnedWords } from '../src/learning/domain/learned-words';
import type { LabelledQuery } from '../test/support/discovery-sets';

/**
 * `eval:discovery --learn`: a set's queries replayed as traffic, each followed by a call of its
 * labelled tool, as `find_tool` learns from use (architecture §1.2), by `principals` synthetic
 * principals taking turns, at most `perTool` queries per tool.
 */
export interface Replay {
  perTool: number;
  principals: number;
  minPrincipals: number;
}

export function replayAsTraffic(queries: readonly LabelledQuery[], replay: Replay): LearnedSignal {
  const associations = new Associations({ minPrincipals: replay.minPrincipals, halfLifeMs: 86_400_000, maxAssociations: 1_000_000 });
  const taken = new Map<string, number>();
  let turn = 0;
  for (const { query, want } of queries) {
    const tool = [...want][0];
    const count = taken.get(tool) ?? 0;
    if (count >= replay.perTool) continue;
    taken.set(tool, count + 1);
    const principal = `p${turn % replay.principals}`;
    turn += 1;
    const observations: Observation[] = learnedWords(queryTerms(query)).map((word) => ({ word, tool, definition: '', principal, atMs: 0 }));
    associations.observe(observations);
  }
  return associations.signal(0, 1);
}

/**
 * The tune part split once more, for choosing learning's constants without the test part: the
 * second byte of the query's SHA-256 says whether it is replayed as traffic or ranked.
 */
export function splitTune(queries: readonly LabelledQuery[]): { traffic: LabelledQuery[]; ranked: LabelledQuery[] } {
  const traffic: LabelledQuery[] = [];
  const ranked: LabelledQuery[] = [];
  for (const q of queries) (createHash('sha256').update(q.query).digest()[1] < 128 ? traffic : ranked).push(q);
  return { traffic, ranked };
}

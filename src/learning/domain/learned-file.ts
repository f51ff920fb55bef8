import { z } from 'zod';
import type { Observation } from './associations';

/**
 * The learning file (and the learning part of Redis, one observation per field): normalized
 * words, tool keys, definition digests, principal digests and times; nothing else.
 */
const FILE = z.object({
  version: z.literal(1),
  observations: z.array(z.tuple([z.string(), z.string(), z.string(), z.string(), z.number()])),
});

export function serializeLearned(observations: readonly Observation[]): string {
  return JSON.stringify({ version: 1, observations: observations.map((o) => [o.word, o.tool, o.definition, o.principal, o.atMs]) });
}

/** The observations of a learning file, oldest first; undefined when it is not one. */
export function parseLearnedFile(text: string): Observation[] | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = FILE.safeParse(raw);
  if (!parsed.success) return undefined;
  return parsed.data.observations
    .map(([word, tool, definition, principal, atMs]) => ({ word, tool, definition, principal, atMs }))
    .sort((a, b) => a.atMs - b.atMs);
}

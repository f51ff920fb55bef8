import type { Associations, Observation } from './domain/associations';

/**
 * Where what `find_tool` learned lives (architecture §1.2): in memory (one replica, lost at
 * restart), in a file (kept across restarts) or in Redis (shared by every replica). Each keeps
 * the associations it knows in memory, for the ranking to read without waiting.
 */
export interface LearningStore {
  /** Reads what was learned before (file, Redis) and starts following other replicas (Redis). */
  open(): Promise<void>;
  /** Writes out what is pending and stops following. */
  close(): Promise<void>;
  /** The associations as known here now. */
  readonly associations: Associations;
  /**
   * Changes when more than the recorded words' part of what the ranking reads may have changed
   * (a reload, a reset, a forgotten tool): the signal is then built again whole.
   */
  readonly version: number;
  /** Takes the observations into `associations` at once (before its first await), then stores them. */
  record(observations: readonly Observation[]): Promise<void>;
  /** Forgets every association of the tools `matches` admits; answers how many. */
  forget(matches: (tool: string) => boolean): Promise<number>;
}

export const LEARNING_STORE = Symbol('centralmcp-router:learning-store');

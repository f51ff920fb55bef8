import type { Clock } from '../common/clock';
import { Associations, type LearningLimits, type Observation } from './domain/associations';
import type { LearningStore } from './learning.store';

/** Associations in this process only: lost at restart, not shared. */
export class MemoryLearningStore implements LearningStore {
  readonly associations: Associations;
  private changes = 1;

  constructor(
    limits: LearningLimits,
    protected readonly clock: Clock,
  ) {
    this.associations = new Associations(limits);
  }

  get version(): number {
    return this.changes;
  }

  open(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  record(observations: readonly Observation[]): Promise<void> {
    this.changed(this.associations.observe(observations));
    return Promise.resolve();
  }

  forget(matches: (tool: string) => boolean): Promise<number> {
    const forgotten = this.associations.forget(matches);
    if (forgotten > 0) this.changed(true);
    return Promise.resolve(forgotten);
  }

  /**
   * Called after every change, saying whether more than the observed words' part of the signal
   * changed (the version then moves: a full rebuild); a subclass writes it out too.
   */
  protected changed(reshaped: boolean): void {
    if (reshaped) this.changes += 1;
  }
}

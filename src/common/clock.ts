/** Time as a dependency, so tests can fake the clock instead of sleeping. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const CLOCK = Symbol('centralmcp-router:clock');

export const systemClock: Clock = { now: () => Date.now() };

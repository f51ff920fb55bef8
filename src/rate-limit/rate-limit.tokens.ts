/** Waiting as a dependency, so tests advance a fake clock instead of sleeping. */
export type Sleep = (ms: number) => Promise<void>;

export const SLEEP = Symbol('centralmcp-router:sleep');

export const timerSleep: Sleep = (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms));

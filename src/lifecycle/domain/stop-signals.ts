/**
 * Stop signals closer together than this are one request to stop. Ctrl-C in a terminal sends
 * SIGINT to the whole foreground process group, so under `npm start` the router gets it from the
 * terminal and again from npm, which forwards the signal it received a few milliseconds later.
 * A person who means "stop now" presses Ctrl-C again after seeing the router drain, which takes
 * longer than this.
 */
export const SIGNAL_COALESCE_MS = 1_000;

/**
 * What a stop signal asks for: `drain` (the first one), `joined` (one arriving with the first: the
 * same request again), or `exit_now` (one that comes later, while draining: stop at once).
 */
export type StopVerdict = 'drain' | 'joined' | 'exit_now';

/** Judges a stop signal received at `nowMs`, the first one of this process having come at `firstAtMs`. */
export function judgeStopSignal(firstAtMs: number | undefined, nowMs: number, coalesceMs: number = SIGNAL_COALESCE_MS): StopVerdict {
  if (firstAtMs === undefined) return 'drain';
  return nowMs - firstAtMs < coalesceMs ? 'joined' : 'exit_now';
}

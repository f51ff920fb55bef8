/**
 * Reconnect schedule of a supervised backend (architecture §3: "restarted with backoff if it dies").
 * Pure: every instant comes in as an argument.
 */

export interface BackoffPolicy {
  /** Delay before the first reconnect attempt. */
  initialDelayMs: number;
  /** Ceiling of the doubling delay, and the cadence of retries while crash-looping. */
  maxDelayMs: number;
  /** A connection up at least this long counts as healthy: the attempt counter starts over. */
  healthyAfterMs: number;
  /** This many exits (losses or failed attempts) within `crashLoopWindowMs` is a crash loop. */
  crashLoopExits: number;
  crashLoopWindowMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = {
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  healthyAfterMs: 30_000,
  crashLoopExits: 5,
  crashLoopWindowMs: 60_000,
};

/** What the supervisor remembers between attempts. */
export interface SupervisionState {
  /** Consecutive reconnect attempts since the last healthy connection (0: none yet). */
  readonly attempt: number;
  /** When recent exits happened, oldest first, pruned to the crash-loop window. */
  readonly exitsMs: readonly number[];
}

export const INITIAL_SUPERVISION: SupervisionState = { attempt: 0, exitsMs: [] };

/** Why the supervisor has to plan a reconnect. */
export type SupervisionEvent =
  | { kind: 'lost'; upSinceMs: number } // a connection that was up went away
  | { kind: 'failed' }; // a connect attempt did not get up

export interface RestartPlan {
  delayMs: number;
  crashLooping: boolean;
  state: SupervisionState;
}

/** Delay before reconnect attempt `attempt` (1-based): 0.5 s doubling to 30 s with the defaults. */
export function backoffDelayMs(attempt: number, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  const doublings = Math.min(Math.max(attempt, 1) - 1, 30); // 2^30 already exceeds any sane ceiling
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** doublings);
}

/**
 * The next reconnect after `event` at `nowMs`. A connection that stayed up for `healthyAfterMs`
 * resets the doubling (a backend that dies once a day restarts at once); many exits in a short
 * window hold retries at the ceiling even when each connection briefly succeeded.
 */
export function planRestart(state: SupervisionState, event: SupervisionEvent, nowMs: number, policy: BackoffPolicy = DEFAULT_BACKOFF): RestartPlan {
  const healthy = event.kind === 'lost' && nowMs - event.upSinceMs >= policy.healthyAfterMs;
  const attempt = (healthy ? 0 : state.attempt) + 1;
  const exitsMs = [...state.exitsMs.filter((t) => nowMs - t < policy.crashLoopWindowMs), nowMs];
  const crashLooping = exitsMs.length >= policy.crashLoopExits;
  const delayMs = crashLooping ? policy.maxDelayMs : backoffDelayMs(attempt, policy);
  return { delayMs, crashLooping, state: { attempt, exitsMs } };
}

import { z } from 'zod';
import type { BackendToolResult } from '../backends.types';
import { backendFailure } from './backend-failures';

/**
 * A 2026-07-28 `InputRequiredResult` (spec basic/patterns/mrtr) as the router keeps it: the state
 * to echo on the retry and the methods the backend asked for. The params of its input requests
 * are never kept: an elicitation message or a sampling prompt may quote the arguments.
 */
export interface InputRequired {
  readonly kind: 'input_required';
  /** Opaque to the router (spec: clients MUST NOT inspect it); echoed exactly, never logged. */
  readonly requestState?: string;
  /** The methods of `inputRequests`, sorted and distinct; empty when it asked for none. */
  readonly inputMethods: readonly string[];
}

/** What one round of a 2026-07-28 `tools/call` answered: the final result or a request for input. */
export type RoundAnswer = BackendToolResult | InputRequired;

/** The input kinds of the spec ("Supported Requests"); anything else is named generically. */
const INPUT_METHODS = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list']);

/** An `InputRequiredResult` (spec basic/patterns/mrtr), the fields the router reads. */
const InputRequiredSchema = z.object({
  resultType: z.literal('input_required'),
  requestState: z.string().optional(),
  inputRequests: z.record(z.string(), z.unknown()).optional(),
});

/** One input request: its method, if it names one of the spec's; never its params. */
const InputRequestSchema = z.object({ method: z.string() });

/**
 * Reads a `tools/call` result as an `InputRequiredResult`, or undefined when it is not one or
 * breaks the schema (`requestState` not a string, `inputRequests` not a map, or neither present:
 * the spec says a server MUST send at least one).
 */
export function readInputRequired(result: unknown): InputRequired | undefined {
  const parsed = InputRequiredSchema.safeParse(result);
  if (!parsed.success) return undefined;
  const { requestState, inputRequests } = parsed.data;
  const methods = new Set(Object.values(inputRequests ?? {}).map(methodOf));
  if (requestState === undefined && methods.size === 0) return undefined;
  return { kind: 'input_required', ...(requestState !== undefined ? { requestState } : {}), inputMethods: [...methods].sort() };
}

/** How one call's rounds are bounded; time and the wait come in from the channel. */
export interface RoundsOptions {
  backend: string;
  /** The call's configured timeout, for the message when its deadline passes between rounds. */
  timeoutMs: number;
  /** Requests sent for one call at most, the first one included (`MAX_INPUT_ROUNDS`). */
  maxRounds: number;
  /** Pause before each retry (`INPUT_RETRY_PAUSE_MS`). */
  pauseMs: number;
  /** Time left until the call's deadline, in ms. */
  remainingMs: () => number;
  pause: (ms: number) => Promise<void>;
  /** Told of each round answered with `input_required` (the call's span records it as an event). */
  onInputRequired?: (round: number) => void;
}

/**
 * Runs one `tools/call` as a 2026-07-28 multi round-trip request. `send(requestState)` sends one
 * round with a fresh JSON-RPC id (the first with no state) and resolves with what it answered.
 * The router declares no client capabilities, so the only retry it can make is the spec's
 * load-shedding one: an `input_required` with `requestState` and no `inputRequests` is retried with
 * that state echoed exactly, after a short pause, while the call's own deadline allows and at most
 * `maxRounds` requests in all. Rejects with one RouterError naming the backend and what happened:
 * - `inputRequests` present (input the router never declared it could give): `backend_failed`,
 *   naming the methods, never their params;
 * - still `input_required` after `maxRounds` requests: `backend_failed`;
 * - the deadline would pass before the next round is sent: `backend_timeout`.
 */
export async function callInRounds(send: (requestState: string | undefined) => Promise<RoundAnswer>, o: RoundsOptions): Promise<BackendToolResult> {
  let requestState: string | undefined;
  for (let round = 1; ; round++) {
    const answer = await send(requestState);
    if (!isInputRequired(answer)) return answer;
    o.onInputRequired?.(round);
    if (answer.inputMethods.length > 0) throw backendFailure.inputRequested(o.backend, answer.inputMethods);
    if (round >= o.maxRounds) throw backendFailure.roundsExhausted(o.backend, round);
    if (o.remainingMs() <= o.pauseMs) throw backendFailure.timedOutBetweenRounds(o.backend, o.timeoutMs, round);
    await o.pause(o.pauseMs);
    requestState = answer.requestState;
  }
}

function isInputRequired(answer: RoundAnswer): answer is InputRequired {
  return 'kind' in answer && answer.kind === 'input_required';
}

/** A backend-chosen string is named only when it is one of the spec's input methods. */
function methodOf(entry: unknown): string {
  const parsed = InputRequestSchema.safeParse(entry);
  return parsed.success && INPUT_METHODS.has(parsed.data.method) ? parsed.data.method : 'an unknown request';
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ToolResultLike } from '../answers/domain/bounding';
import { BackendsService } from '../backends/backends.service';
import type { OfferingRequest } from '../backends/channels/backend-channel';
import type { BackendToolResult, CallTrace } from '../backends/backends.types';
import { ConfigService } from '../config/config.service';
import type { BackendConfig } from '../config/config.types';
import { backendAddress, backendCallSpan, INPUT_REQUIRED_EVENT, type NamedAttributes, TOOL_ERROR, type BackendAddress } from '../tracing/domain/spans';
import { TRACING, type SpanOutcome, type Tracing } from '../tracing/tracing';
import { RouterError, type RouterErrorCode } from '../common/router-error';
import { LifecycleService } from '../lifecycle/lifecycle.service';
import { MetricsService } from '../metrics/metrics.service';
import { RateLimitService, type RateLimitBucket } from '../rate-limit/rate-limit.service';
import { LogThrottle } from './domain/log-throttle';
import { noTokenInTime, notDispatched, rateLimitStoreUnavailable, stoppedAtDeadline, thrownError, toolErrorOf } from './domain/seam-refusals';

/** A failing backend writes at most one warn line per failure code in this window. */
const FAILURE_LOG_WINDOW_MS = 10_000;

/** A backend call's span fails with a tool's error (`isError: true`), or with the code of what the call threw. */
const BACKEND_CALL_OUTCOME: SpanOutcome<BackendToolResult> = {
  result: (span, result) => {
    if (result.isError === true) span.fail(TOOL_ERROR);
  },
  errorType: (err) => (err instanceof RouterError ? err.code : 'backend_failed'),
};

/** What a backend call came to: its result, or why it failed. */
export type BackendOutcome<R = ToolResultLike> = { kind: 'result'; result: R } | { kind: 'failed'; error: RouterError };

/**
 * The end of the seam that reaches a backend (architecture §12, steps 8 to 10): the drain check, a
 * rate-limit token, then the call with the backend's deadline, timed. Only a call that passed every
 * local check gets here, so refusals cost no token (architecture §7). The only caller of
 * `BackendsService.callTool`; failures come back as values.
 */
@Injectable()
export class BackendCallService {
  /** The seam's name, which operators' log queries for backend failures already filter on. */
  private readonly logger = new Logger('BatchService');
  private readonly failureLogs = new LogThrottle(FAILURE_LOG_WINDOW_MS);

  /** Where each backend of the config in force is reached, for its calls' client spans (swapped by a reload). */
  private addresses: ReadonlyMap<string, BackendAddress>;

  constructor(
    private readonly rateLimits: RateLimitService,
    private readonly backends: BackendsService,
    private readonly metrics: MetricsService,
    private readonly lifecycle: LifecycleService,
    @Inject(TRACING) private readonly tracing: Tracing,
    configs: ConfigService,
  ) {
    this.addresses = addressesOf(configs.current.backends);
    configs.onReload((config) => (this.addresses = addressesOf(config.backends)));
  }

  /** True once the drain deadline has passed: nothing more is dispatched. */
  get stopped(): boolean {
    return this.lifecycle.stopSignal.aborted;
  }

  /**
   * The call's outcome, or `shutting_down` as soon as the drain deadline passes: the caller gets its
   * answer now ("not dispatched" while it still waits for a rate-limit token, "stopped at the drain
   * deadline" once dispatched), and the backend call left behind ends when the backends close.
   *
   * `beforeDispatch` is the last check, once every other refusal is behind: the backend is known to
   * be up and nothing but the call itself is left. A write uses up its confirmation there, so that
   * a call refused on the way (rate limit, drain, backend down) leaves the token good; what it
   * answers instead of undefined is the call's refusal, and the backend is not called.
   */
  call(
    backend: string,
    tool: string,
    args: Record<string, unknown>,
    principal: string,
    beforeDispatch?: () => Promise<RouterError | undefined>,
  ): Promise<BackendOutcome> {
    // Checked before the call starts: a stopped router takes no token and reaches no backend.
    if (this.stopped) return Promise.resolve(failed(notDispatched()));
    if (beforeDispatch === undefined && this.rateLimits.unlimited(backend, principal)) return this.straight(backend, tool, args);
    let dispatched = false;
    const call = (): Promise<{ outcome: BackendOutcome; why: string }> => {
      dispatched = true;
      return this.callBackend(backend, tool, args).then(toolOutcome);
    };
    return this.lifecycle.untilStopped(this.limited(backend, tool, principal, call, beforeDispatch), () => failed(atDeadline(dispatched)));
  }

  /**
   * Most calls: no rate-limit token to take and no last check, so the call is dispatched now, with
   * one `then` on the backend's promise (no async function and its turns on every call).
   */
  private straight(backend: string, tool: string, args: Record<string, unknown>): Promise<BackendOutcome> {
    const started = performance.now();
    let work: Promise<BackendToolResult>;
    try {
      work = this.callBackend(backend, tool, args);
    } catch (err) {
      work = Promise.reject(err);
    }
    return this.lifecycle.settleUntilStopped(
      work,
      (result) => this.timed(backend, tool, started, toolOutcome(result)),
      (err) => this.timed(backend, tool, started, thrownOutcome(err)),
      () => failed(stoppedAtDeadline()),
    );
  }

  /**
   * A request about a backend's resources or prompts (architecture §16), through the same drain
   * check, rate-limit tokens, deadline, metrics and failure log as a tool call. The failure log
   * names the method, never a URI or a name, which may carry values.
   */
  request(backend: string, request: OfferingRequest, principal: string): Promise<BackendOutcome<Record<string, unknown>>> {
    if (this.stopped) return Promise.resolve(failed(notDispatched()));
    let dispatched = false;
    const call = async () => {
      dispatched = true;
      return { outcome: { kind: 'result' as const, result: await this.backends.request(backend, request) }, why: '' };
    };
    return this.lifecycle.untilStopped(this.limited(backend, request.method, principal, call), () => failed(atDeadline(dispatched)));
  }

  /** Takes a rate-limit token, then calls the backend, timed. */
  private async limited<R>(
    backend: string,
    tool: string,
    principal: string,
    call: () => Promise<{ outcome: BackendOutcome<R>; why: string }>,
    beforeDispatch?: () => Promise<RouterError | undefined>,
  ): Promise<BackendOutcome<R>> {
    // Most calls have no bucket: they skip the token's await and its turns.
    if (!this.rateLimits.unlimited(backend, principal)) {
      const limited = await this.rateLimits.acquire(backend, principal);
      if (!limited.ok) {
        if (limited.reason === 'store_unavailable') return failed(rateLimitStoreUnavailable());
        this.metrics.recordRateLimitTimeout(bucketLabel(limited.bucket, backend));
        return failed(noTokenInTime(limited.maxWaitMs));
      }
      for (const wait of limited.waits) this.metrics.observeRateLimitWait(bucketLabel(wait.bucket, backend), wait.waitMs / 1000);
      // A call whose wait outlasted the drain deadline was answered already: it reaches no backend.
      if (this.stopped) return failed(notDispatched());
    }
    if (beforeDispatch !== undefined) {
      const down = this.backends.unavailable(backend);
      if (down !== undefined) return failed(down);
      const refused = await beforeDispatch();
      if (refused !== undefined) return failed(refused);
    }
    const started = performance.now();
    let done: { outcome: BackendOutcome<R>; why: string };
    try {
      done = await call();
    } catch (err) {
      done = thrownOutcome(err);
    }
    return this.timed(backend, tool, started, done);
  }

  /** A call's outcome once it is back: its latency observed, a failure logged. */
  private timed<R>(backend: string, tool: string, started: number, { outcome, why }: { outcome: BackendOutcome<R>; why: string }): BackendOutcome<R> {
    const seconds = (performance.now() - started) / 1000;
    this.metrics.observeBackendCall(backend, outcome.kind === 'failed' ? 'error' : 'ok', seconds);
    if (outcome.kind === 'failed') this.logFailure(backend, tool, outcome.error.code, why, seconds);
    return outcome;
  }

  /**
   * The backend call itself; with tracing on, inside a client span whose context the request
   * carries (`params._meta`, and the `traceparent` header over HTTP), with one event per
   * `input_required` round (architecture §8.1).
   */
  private callBackend(backend: string, tool: string, args: Record<string, unknown>): Promise<BackendToolResult> {
    if (!this.tracing.enabled) return this.backends.callTool(backend, tool, args);
    return this.tracing.inSpan(
      () => backendCallSpan(backend, tool, this.addresses.get(backend)),
      (span) => {
        const trace: CallTrace = {
          context: span.carrier(),
          onInputRequired: (round) => span.addEvent(INPUT_REQUIRED_EVENT, { 'centralmcp.round': round } satisfies NamedAttributes),
        };
        return this.backends.callTool(backend, tool, args, trace);
      },
      BACKEND_CALL_OUTCOME,
    );
  }

  /**
   * A failed backend call at `warn`: the audit line says only `error`, an operator needs the why.
   * Throttled per backend and failure code; never argument values.
   */
  private logFailure(backend: string, tool: string, code: RouterErrorCode, why: string, seconds: number): void {
    const verdict = this.failureLogs.check(`${backend}\u0000${code}`, performance.now());
    if (!verdict.write) return;
    this.logger.warn({
      msg: 'backend call failed',
      backend,
      tool,
      code,
      error: why,
      durationMs: Math.round(seconds * 1000),
      ...(verdict.suppressed > 0 ? { suppressedSinceLast: verdict.suppressed } : {}),
    });
  }
}

/**
 * The answer of a call the drain deadline stopped: one still waiting for its rate-limit token was
 * never dispatched (nothing reached the backend, a confirmation it carries was not used up).
 */
function atDeadline(dispatched: boolean): RouterError {
  return dispatched ? stoppedAtDeadline() : notDispatched();
}

/** A tool's result as the call's outcome: `isError: true` fails it, and says why in the router's words. */
function toolOutcome(result: BackendToolResult): { outcome: BackendOutcome; why: string } {
  // A tool error's own text may echo the arguments: the why is the router's.
  return { outcome: result.isError === true ? failed(toolErrorOf(result)) : { kind: 'result', result }, why: 'the tool answered isError: true' };
}

/** A call that threw (a timeout, a lost connection, a bug) as its outcome, with its message as the why. */
function thrownOutcome(err: unknown): { outcome: { kind: 'failed'; error: RouterError }; why: string } {
  const error = thrownError(err);
  return { outcome: failed(error), why: error.message };
}

function addressesOf(backends: readonly BackendConfig[]): ReadonlyMap<string, BackendAddress> {
  return new Map(
    backends.map((b): [string, BackendAddress] => [
      b.name,
      backendAddress(b.name, b.transport === 'stdio' ? { transport: 'stdio' } : { transport: b.transport, url: b.url }),
    ]),
  );
}

function failed(error: RouterError): { kind: 'failed'; error: RouterError } {
  return { kind: 'failed', error };
}

/** The metric label of a rate-limit bucket: `global`, `principal`, or the backend's own name. */
function bucketLabel(bucket: RateLimitBucket, backend: string): string {
  return bucket === 'backend' ? backend : bucket;
}

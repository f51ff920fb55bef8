import { setTimeout as delay } from 'node:timers/promises';
import type { BackendToolResult } from '../backends.types';
import type { ChannelCall, ChannelEvents, OfferingRequest } from '../channels/backend-channel';
import { backendFailure, toRouterError } from '../domain/backend-failures';
import { callInRounds, type RoundAnswer } from '../domain/input-required';
import { INPUT_RETRY_PAUSE_MS, MAX_INPUT_ROUNDS } from '../domain/limits';
import { offeringsOf, offeringWireRequest, readOfferingResult } from '../domain/modern-offerings';
import {
  collectModernTools,
  type ListenFilter,
  listenFilterOf,
  type ModernTool,
  type ProbeVerdict,
  probeVerdict,
  readDiscoverAnswer,
  readRpcResult,
} from '../domain/modern-protocol';
import { NO_OFFERINGS, type OfferingCapabilities } from '../../registry/domain/offerings';
import { RelistTimer } from './relist-timer';

/** What a 2026-07-28 backend's connect and liveness failures say, the same over every transport. */
export const MODERN_FAILURES = {
  answeredAsLegacy: 'backend does not speak MCP 2026-07-28 (it answered discovery as a 2025 server); set era: auto or legacy',
  silentOnDiscovery: (timeoutMs: number) =>
    `backend does not speak MCP 2026-07-28 (no answer to server/discover within ${timeoutMs} ms); set era: auto or legacy`,
  discoveryLost: 'backend no longer answers discovery as a 2026-07-28 server',
} as const;

/** One answer outside the hot path: the HTTP status (200 on stdio, which has none) and the message as sent. */
export interface WireAnswer {
  status: number;
  message: unknown;
}

/**
 * How a modern session's requests travel: all that its two transports (Streamable HTTP, stdio) do
 * differently. Every request carries the 2026-07-28 `_meta`.
 */
export interface ModernWire {
  /**
   * One request outside the hot path within `timeoutMs`; `name` is what its `Mcp-Name` header
   * mirrors on HTTP (spec "Standard Request Headers"), when the method has one.
   */
  request(method: string, params: Record<string, unknown>, timeoutMs: number, name?: string): Promise<WireAnswer>;
  /** One round of a `tools/call` on a fresh id, within the whole call's `deadline`; `requestState` echoed on a retry. */
  callRound(call: ChannelCall, deadline: number, requestState: string | undefined): Promise<RoundAnswer>;
  /** Opens the `subscriptions/listen` subscription to the list changes `filter` names. */
  listen(filter: ListenFilter): void;
  /** Whether a subscription is open and granted `toolsListChanged`: a TTL of 0 then needs no timer. */
  listening(): boolean;
  /** A failure of a request that may say the backend is gone (HTTP: unreachable, a broken socket). */
  report?(err: unknown): void;
}

/**
 * What a 2026-07-28 ("modern") backend's channel does whatever its transport (docs/backend-eras.md):
 * `server/discover` as connect, era probe and liveness check (2026-07-28 has no `initialize` and no
 * `ping`); the listing with its `ttlMs` re-list schedule; the resources and prompts discovery
 * declares; the subscription to the list changes discovery announces; and `tools/call` run as a multi round-trip request (spec
 * basic/patterns/mrtr: a backend shedding load may answer `input_required` with a `requestState`,
 * and the call is sent again with it, within the call's own deadline). `ModernHttpChannel` and
 * `ModernStdioChannel` each supply a `ModernWire`.
 */
export class ModernSession {
  private readonly relist: RelistTimer;
  /** The list changes discovery said the backend announces; undefined for none. */
  private announced: ListenFilter | undefined;
  /** What discovery declared beside tools. */
  private declared: OfferingCapabilities = NO_OFFERINGS;
  private closed = false;
  /** The transport ended by itself (a stdio child exited). */
  private gone = false;

  constructor(
    private readonly backend: string,
    private readonly wire: ModernWire,
    private readonly events: ChannelEvents,
    random: () => number = Math.random,
  ) {
    this.relist = new RelistTimer(() => this.listAgain(), random);
  }

  /** Neither closed nor gone: requests may still be sent. */
  get open(): boolean {
    return !this.closed && !this.gone;
  }

  /**
   * `server/discover` with the router's version, read as the spec's era probe ("Backward
   * Compatibility" of Streamable HTTP and of stdio). Rejects only when the backend cannot be
   * reached or did not answer.
   */
  async discover(timeoutMs: number): Promise<ProbeVerdict> {
    const { status, message } = await this.wire.request('server/discover', {}, timeoutMs);
    const answer = readDiscoverAnswer(message);
    const verdict = probeVerdict(status, answer);
    if (verdict.era === 'modern') {
      this.announced = listenFilterOf(answer);
      this.declared = offeringsOf(answer);
    }
    return verdict;
  }

  /** Finishes `connect` with the verdict of its discovery: only a modern one connects. */
  accept(verdict: ProbeVerdict): void {
    if (verdict.era === 'none') throw new Error(verdict.reason);
    if (verdict.era === 'legacy') throw new Error(MODERN_FAILURES.answeredAsLegacy);
    this.afterConnect();
  }

  /** Called once discovery proved the backend modern: opens the change subscription if it has one. */
  afterConnect(): void {
    if (this.announced) this.wire.listen(this.announced);
  }

  /** What the backend's discovery declared beside tools: resources, prompts. */
  offerings(): OfferingCapabilities {
    return this.declared;
  }

  /** One request about resources or prompts, its result checked by the SDK's schema of it. */
  async request(request: OfferingRequest, timeoutMs: number): Promise<Record<string, unknown>> {
    const { method, params, name } = offeringWireRequest(request);
    let message: unknown;
    try {
      ({ message } = await this.wire.request(method, params, timeoutMs, name));
    } catch (err) {
      this.report(err);
      throw err;
    }
    return readOfferingResult(method, readRpcResult(message, this.backend), this.backend);
  }

  /** Every page of `tools/list`; the smallest `ttlMs` schedules the next listing. */
  async listTools(pageTimeoutMs: () => number): Promise<ModernTool[]> {
    const { tools, ttlMs } = await collectModernTools(async (params) => {
      try {
        return (await this.wire.request('tools/list', params, pageTimeoutMs())).message;
      } catch (err) {
        this.report(err);
        throw err;
      }
    }, this.backend);
    if (this.open) this.relist.schedule(ttlMs, this.wire.listening());
    return tools;
  }

  /** One `tools/call`, in rounds while the backend answers `input_required` (`callInRounds`). */
  async call(request: ChannelCall): Promise<BackendToolResult> {
    const deadline = Date.now() + request.timeoutMs;
    const send = (requestState: string | undefined) =>
      // A session that ended during a pause between rounds sends nothing more.
      this.open ? this.wire.callRound(request, deadline, requestState) : Promise.reject(backendFailure.notConnected(this.backend));
    try {
      return await callInRounds(send, {
        backend: this.backend,
        timeoutMs: request.timeoutMs,
        maxRounds: MAX_INPUT_ROUNDS,
        pauseMs: INPUT_RETRY_PAUSE_MS,
        remainingMs: () => deadline - Date.now(),
        pause: (ms) => delay(ms),
        onInputRequired: request.trace?.onInputRequired,
      });
    } catch (err) {
      this.report(err);
      throw toRouterError(err, this.backend, request.timeoutMs);
    }
  }

  /** 2026-07-28 has no `ping`: a discovery that answers is the liveness proof. */
  async ping(timeoutMs: number): Promise<void> {
    const verdict = await this.discover(timeoutMs);
    if (verdict.era !== 'modern') throw new Error(MODERN_FAILURES.discoveryLost);
  }

  /**
   * Tells the supervisor the listing is stale (its `ttlMs` ran out, or a subscription that was the
   * signal of changes is over), unless the session ended.
   */
  listAgain(): void {
    if (this.open) this.events.onStale?.();
  }

  /** The transport ended by itself: nothing more is sent or scheduled. */
  end(): void {
    this.gone = true;
    this.relist.stop();
  }

  /** Closed by its supervisor: nothing more is sent or scheduled. Safe to call more than once. */
  close(): void {
    this.closed = true;
    this.relist.stop();
  }

  private report(err: unknown): void {
    if (this.open) this.wire.report?.(err);
  }
}

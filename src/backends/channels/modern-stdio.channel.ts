import { setTimeout as delay } from 'node:timers/promises';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Logger } from '@nestjs/common';
import { RouterError } from '../../common/router-error';
import type { StdioBackendConfig } from '../../config/config.types';
import type { BackendToolResult } from '../backends.types';
import { backendFailure, describeFailure, toRouterError } from '../domain/backend-failures';
import { modernOutcomeOf, readCallAnswer } from '../domain/call-answer';
import { callInRounds, type RoundAnswer } from '../domain/input-required';
import { CLIENT_INFO, INPUT_RETRY_PAUSE_MS, MAX_INPUT_ROUNDS } from '../domain/limits';
import {
  announcesToolChanges,
  belongsToSubscription,
  collectModernTools,
  probeVerdict,
  type ProbeVerdict,
  readListenEvent,
  requestMeta,
} from '../domain/modern-protocol';
import type { BackendChannel, ChannelCall, ChannelEvents } from './backend-channel';
import type { EraProbe } from './era-probing.channel';
import { RelistTimer } from './relist-timer';
import { stdioProcessOptions } from './stdio.channel';
import { StdioProcessTransport } from './stdio-process.transport';

/**
 * A stdio backend of the 2026-07-28 era ("modern"): the same supervised child and id-matched
 * process transport as a 2025 stdio backend, but no `initialize` and no SDK client. Every request
 * carries the version and the router's (empty) capabilities in `params._meta`; there is no header
 * layer on stdio (spec stdio "Request Metadata"). See docs/backend-eras.md.
 * - `connect` is `server/discover` (servers MUST implement it).
 * - `listTools` pages `tools/list`; the smallest `ttlMs` schedules the next listing, as over HTTP.
 * - `call` is a direct request on the transport, matched by id; past its deadline the backend is
 *   sent `notifications/cancelled` (stdio has no per-request stream to close: spec stdio
 *   "Cancellation").
 * - Tool-list changes come on a `subscriptions/listen` request when discovery announces them; on
 *   stdio every message shares stdout, so its notifications are picked by the `_meta`
 *   subscription id (spec "Subscriptions").
 * - Liveness is `server/discover` (2026-07-28 has no `ping`); a dead child is its exit.
 */
export class ModernStdioChannel implements BackendChannel, EraProbe {
  readonly era = 'modern' as const;
  private readonly logger = new Logger(ModernStdioChannel.name);
  private readonly transport: StdioProcessTransport;
  private readonly meta = requestMeta(CLIENT_INFO);
  private readonly relist: RelistTimer;
  private exited = false;
  private closed = false;
  private handedOver = false;
  /** Discovery said the backend announces tool-list changes. */
  private announces = false;
  /** Id of the open `subscriptions/listen` request, if any. */
  private listenId: string | undefined;
  private listenSeq = 0;

  constructor(
    private readonly config: StdioBackendConfig,
    private readonly events: ChannelEvents,
    random: () => number = Math.random,
  ) {
    this.relist = new RelistTimer(() => this.events.onStale?.(), random);
    this.transport = new StdioProcessTransport(stdioProcessOptions(config));
    this.transport.onclose = () => {
      this.exited = true;
      this.relist.stop();
      // The child's exit status and last stderr line say why, not "connection closed".
      if (!this.handedOver) this.events.onClose(this.transport.describeExit());
    };
    this.transport.onmessage = (message) => this.onMessage(message);
    // A bad stdout line: one line is dropped, the child's exit (if any) comes through onclose.
    this.transport.onerror = (err) => this.logger.debug({ msg: 'transport error', backend: config.name, detail: describeFailure(err) });
  }

  get pid(): number | undefined {
    return this.transport.pid;
  }

  /**
   * The era probe of `era: auto` (spec 2026-07-28 stdio "Backward Compatibility"): starts the
   * child and sends `server/discover` before anything else. A DiscoverResult or a recognized
   * modern error → modern; any other error, or no answer within half of `timeoutMs` (the other
   * half is left for `initialize`) → legacy. Rejects only when the child cannot run or exits.
   */
  async probe(timeoutMs: number): Promise<ProbeVerdict> {
    await this.transport.start();
    try {
      return this.verdictOf(await this.request('server/discover', {}, Math.max(1, Math.floor(timeoutMs / 2))));
    } catch (err) {
      if (isTimeout(err)) return { era: 'legacy' };
      throw err;
    }
  }

  /** `era: modern`: discovery must answer as a 2026-07-28 server within `timeoutMs`. */
  async connect(timeoutMs: number): Promise<void> {
    await this.transport.start();
    let verdict: ProbeVerdict;
    try {
      verdict = this.verdictOf(await this.request('server/discover', {}, timeoutMs));
    } catch (err) {
      if (isTimeout(err)) throw new Error(`backend does not speak MCP 2026-07-28 (no answer to server/discover within ${timeoutMs} ms); set era: auto or legacy`);
      throw err;
    }
    if (verdict.era === 'none') throw new Error(verdict.reason);
    if (verdict.era === 'legacy') throw new Error('backend does not speak MCP 2026-07-28 (it answered discovery as a 2025 server); set era: auto or legacy');
    this.afterConnect();
  }

  /** Called once discovery proved the backend modern: opens the change subscription if it has one. */
  afterConnect(): void {
    if (this.announces) void this.openListen();
  }

  /**
   * Gives the running child to a 2025 channel (the probe found a legacy server): the same process
   * goes on with `initialize`, as the spec's fallback reads (the era is a property of the process).
   * This channel lets go of every handler; it must not be closed afterwards.
   */
  handOver(): StdioProcessTransport {
    this.handedOver = true;
    this.relist.stop();
    this.transport.onclose = undefined;
    this.transport.onmessage = undefined;
    this.transport.onerror = undefined;
    this.transport.handOver();
    return this.transport;
  }

  async listTools(pageTimeoutMs: () => number): Promise<Tool[]> {
    const { tools, ttlMs } = await collectModernTools((params) => this.request('tools/list', params, pageTimeoutMs()), this.config.name);
    if (!this.closed && !this.exited) this.relist.schedule(ttlMs, this.listenId !== undefined);
    return tools;
  }

  /**
   * One `tools/call`, run as a multi round-trip request (spec basic/patterns/mrtr), as over HTTP: a
   * backend shedding load may answer `input_required` with only a `requestState`, and the call is
   * sent again with it on a new id, within this call's deadline (`callInRounds`).
   */
  async call({ tool, arguments: args, timeoutMs }: ChannelCall): Promise<BackendToolResult> {
    const backend = this.config.name;
    const deadline = Date.now() + timeoutMs;
    const send = async (requestState: string | undefined): Promise<RoundAnswer> => {
      // A backend gone during a pause between rounds gets nothing more.
      if (this.closed || this.exited) throw backendFailure.notConnected(backend);
      const params = requestState === undefined ? { name: tool, arguments: args, _meta: this.meta } : { name: tool, arguments: args, requestState, _meta: this.meta };
      const { id, message } = await this.transport.request('tools/call', params, Math.max(1, deadline - Date.now()));
      const outcome = modernOutcomeOf(readCallAnswer(message, id), backend);
      if (outcome instanceof RouterError) throw outcome;
      return outcome;
    };
    try {
      return await callInRounds(send, {
        backend,
        timeoutMs,
        maxRounds: MAX_INPUT_ROUNDS,
        pauseMs: INPUT_RETRY_PAUSE_MS,
        remainingMs: () => deadline - Date.now(),
        pause: (ms) => delay(ms),
      });
    } catch (err) {
      throw toRouterError(err, backend, timeoutMs);
    }
  }

  /** 2026-07-28 has no `ping`: a discovery that answers is the liveness proof. */
  async ping(timeoutMs: number): Promise<void> {
    const verdict = this.verdictOf(await this.request('server/discover', {}, timeoutMs));
    if (verdict.era !== 'modern') throw new Error('backend no longer answers discovery as a 2026-07-28 server');
  }

  /** Closes stdin, then SIGTERM and SIGKILL of the group (spec stdio "Shutdown"); resolves once it exited. */
  async close(): Promise<void> {
    this.closed = true;
    this.relist.stop();
    if (this.handedOver) return;
    await this.transport.close();
  }

  kill(): void {
    if (!this.handedOver) this.transport.killNow();
  }

  describeFailure(err: unknown): string {
    return this.exited || this.transport.spawnFailed ? this.transport.describeExit() : describeFailure(err);
  }

  /** One request with the modern `_meta` envelope; resolves with the raw JSON-RPC answer. */
  private async request(method: string, params: Record<string, unknown>, timeoutMs: number): Promise<unknown> {
    return (await this.transport.request(method, { ...params, _meta: this.meta }, timeoutMs)).message;
  }

  private verdictOf(message: unknown): ProbeVerdict {
    // stdio has no status line: every answer is read as an HTTP 200 body would be.
    const verdict = probeVerdict(200, message);
    if (verdict.era === 'modern') this.announces = announcesToolChanges(message);
    return verdict;
  }

  /**
   * `subscriptions/listen` for tool-list changes: a request that stays open; its notifications and
   * its final answer carry its id as the subscription id. It ends with the child (a restarted child
   * is a new channel that subscribes again, as the spec requires after a restart).
   */
  private async openListen(): Promise<void> {
    const id = `listen${++this.listenSeq}`;
    this.listenId = id;
    try {
      await this.transport.send({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { _meta: this.meta, notifications: { toolsListChanged: true } } });
    } catch (err) {
      this.listenId = undefined;
      this.logger.debug({ msg: 'subscriptions/listen not sent', backend: this.config.name, detail: describeFailure(err) });
    }
  }

  private onMessage(message: unknown): void {
    const id = this.listenId;
    if (id === undefined || !belongsToSubscription(message, id)) return; // progress, logs, late answers
    const event = readListenEvent(message, id);
    if (event.kind === 'tools_changed') this.events.onListChanged();
    else if (event.kind === 'acknowledged' && !event.toolsListChanged) this.endListen('not granted');
    else if (event.kind === 'closed') this.endListen('ended by the backend');
  }

  /**
   * The subscription is over while the child lives (refused, or closed by the server): list again
   * now, so the next listing schedules itself by TTL alone instead of waiting for notifications.
   */
  private endListen(why: string): void {
    this.listenId = undefined;
    this.logger.debug({ msg: 'subscriptions/listen over', backend: this.config.name, why });
    if (!this.closed && !this.exited) this.events.onStale?.();
  }
}

function isTimeout(err: unknown): boolean {
  return err instanceof McpError && err.code === ErrorCode.RequestTimeout;
}

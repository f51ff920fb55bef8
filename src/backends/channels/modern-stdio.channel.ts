import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Logger } from '@nestjs/common';
import type { StdioBackendConfig } from '../../config/config.types';
import type { BackendToolResult } from '../backends.types';
import { describeFailure, mcpErrorCode } from '../domain/backend-failures';
import { modernOutcomeOf, readCallAnswer } from '../domain/call-answer';
import type { RoundAnswer } from '../domain/input-required';
import { CLIENT_INFO } from '../domain/limits';
import {
  belongsToSubscription,
  type ListenFilter,
  listenEventOf,
  type ModernTool,
  type ProbeVerdict,
  readListenMessage,
  requestMeta,
} from '../domain/modern-protocol';
import { MODERN_FAILURES, ModernSession, type ModernWire, type WireAnswer } from '../protocol/modern-session';
import { StdioRequests } from '../protocol/stdio-requests';
import { StdioProcessTransport } from '../transports/stdio-process.transport';
import type { OfferingCapabilities } from '../../registry/domain/offerings';
import type { BackendChannel, ChannelCall, ChannelEvents, OfferingRequest } from './backend-channel';
import type { EraProbe } from './era-probing.channel';
import { withTraceMeta } from '../domain/trace-meta';

/**
 * A stdio backend of the 2026-07-28 era ("modern"): what every modern channel does is its
 * `ModernSession`'s; this channel is its wire over the same supervised child and the same
 * id-matched requests (`StdioRequests`) as a 2025 stdio backend, with no `initialize` and no SDK
 * client. Every request carries the version and the router's (empty) capabilities in
 * `params._meta`; there is no header layer on stdio (spec stdio "Request Metadata"). See
 * docs/backend-eras.md.
 * - A call past its deadline is cancelled with `notifications/cancelled` (stdio has no
 *   per-request stream to close: spec stdio "Cancellation").
 * - Resources and prompts are those discovery declares, read through the session.
 * - List changes come on a `subscriptions/listen` request when discovery announces them; on
 *   stdio every message shares stdout, so its notifications are picked by the `_meta`
 *   subscription id (spec "Subscriptions").
 * - A dead child is its exit.
 */
export class ModernStdioChannel implements BackendChannel, EraProbe {
  readonly era = 'modern' as const;
  private readonly logger = new Logger(ModernStdioChannel.name);
  private readonly requests: StdioRequests;
  private readonly session: ModernSession;
  private readonly meta = requestMeta(CLIENT_INFO);
  private handedOver = false;
  /** The child exited: failures are told by its exit. */
  private exited = false;
  /** Id of the open `subscriptions/listen` request, if any. */
  private listenId: string | undefined;
  private listenSeq = 0;
  /** The open subscription's acknowledgment did not refuse tool-list changes. */
  private toolsGranted = true;
  private readonly readAnswer = (message: unknown): WireAnswer => ({ status: 200, message });
  private readonly readRound = (message: unknown, id: string) => modernOutcomeOf(readCallAnswer(message, id), this.config.name);

  constructor(
    private readonly config: StdioBackendConfig,
    private readonly events: ChannelEvents,
    random: () => number = Math.random,
  ) {
    const wire: ModernWire = {
      // stdio has no status line: every answer is read as an HTTP 200 body would be.
      request: (method, params, timeoutMs) => this.requests.request(method, { ...params, _meta: this.meta }, timeoutMs, this.readAnswer),
      callRound: (call, deadline, requestState) => this.callRound(call, deadline, requestState),
      listen: (filter) => void this.openListen(filter),
      listening: () => this.listenId !== undefined && this.toolsGranted,
    };
    this.session = new ModernSession(config.name, wire, events, random);
    this.requests = new StdioRequests(new StdioProcessTransport(StdioProcessTransport.optionsOf(config)));
    this.requests.onclose = () => {
      this.exited = true;
      this.session.end();
      // The child's exit status and last stderr line say why, not "connection closed".
      events.onClose(this.requests.transport.describeExit());
    };
    this.requests.onmessage = (message) => this.onMessage(message);
    // A bad stdout line: one line is dropped, the child's exit (if any) comes through onclose.
    this.requests.onerror = (err) => this.logger.debug({ msg: 'transport error', backend: config.name, detail: describeFailure(err) });
  }

  get pid(): number | undefined {
    return this.requests.transport.pid;
  }

  /**
   * The era probe of `era: auto` (spec 2026-07-28 stdio "Backward Compatibility"): starts the
   * child and sends `server/discover` before anything else. A DiscoverResult or a recognized
   * modern error → modern; any other error, or no answer within half of `timeoutMs` (the other
   * half is left for `initialize`) → legacy. Rejects only when the child cannot run or exits.
   */
  async probe(timeoutMs: number): Promise<ProbeVerdict> {
    await this.requests.transport.start();
    try {
      return await this.session.discover(Math.max(1, Math.floor(timeoutMs / 2)));
    } catch (err) {
      if (isTimeout(err)) return { era: 'legacy' };
      throw err;
    }
  }

  /** `era: modern`: discovery must answer as a 2026-07-28 server within `timeoutMs`. */
  async connect(timeoutMs: number): Promise<void> {
    await this.requests.transport.start();
    let verdict: ProbeVerdict;
    try {
      verdict = await this.session.discover(timeoutMs);
    } catch (err) {
      // eslint-disable-next-line preserve-caught-error -- describeFailure appends a cause's message, which would change the logged failure
      if (isTimeout(err)) throw new Error(MODERN_FAILURES.silentOnDiscovery(timeoutMs));
      throw err;
    }
    this.session.accept(verdict);
  }

  afterConnect(): void {
    this.session.afterConnect();
  }

  /**
   * Gives the running child, with the requests on its pipe, to a 2025 channel (the probe found a
   * legacy server): the same process goes on with `initialize`, as the spec's fallback reads (the
   * era is a property of the process). This channel lets go of every handler; it must not be
   * closed afterwards.
   */
  handOver(): StdioRequests {
    this.handedOver = true;
    this.session.end();
    this.requests.detach();
    this.requests.transport.handOver();
    return this.requests;
  }

  listTools(pageTimeoutMs: () => number): Promise<ModernTool[]> {
    return this.session.listTools(pageTimeoutMs);
  }

  call(request: ChannelCall): Promise<BackendToolResult> {
    return this.session.call(request);
  }

  offerings(): OfferingCapabilities {
    return this.session.offerings();
  }

  request(request: OfferingRequest, timeoutMs: number): Promise<Record<string, unknown>> {
    return this.session.request(request, timeoutMs);
  }

  ping(timeoutMs: number): Promise<void> {
    return this.session.ping(timeoutMs);
  }

  /** Closes stdin, then SIGTERM and SIGKILL of the group (spec stdio "Shutdown"); resolves once it exited. */
  async close(): Promise<void> {
    this.session.close();
    if (this.handedOver) return;
    await this.requests.transport.close();
  }

  kill(): void {
    if (!this.handedOver) this.requests.transport.killNow();
  }

  describeFailure(err: unknown): string {
    const { transport } = this.requests;
    return this.exited || transport.spawnFailed ? transport.describeExit() : describeFailure(err);
  }

  /** One round of a call: a request on the pipe within what is left of the call's deadline. */
  private callRound({ tool, arguments: args, trace }: ChannelCall, deadline: number, requestState: string | undefined): Promise<RoundAnswer> {
    const meta = withTraceMeta(this.meta, trace);
    const params = requestState === undefined ? { name: tool, arguments: args, _meta: meta } : { name: tool, arguments: args, requestState, _meta: meta };
    return this.requests.request<RoundAnswer>('tools/call', params, Math.max(1, deadline - Date.now()), this.readRound);
  }

  /**
   * `subscriptions/listen` for the list changes `filter` names: a request that stays open; its notifications and
   * its final answer carry its id as the subscription id. It ends with the child (a restarted child
   * is a new channel that subscribes again, as the spec requires after a restart).
   */
  private async openListen(filter: ListenFilter): Promise<void> {
    const id = `listen${++this.listenSeq}`;
    this.listenId = id;
    this.toolsGranted = filter.toolsListChanged === true;
    try {
      await this.requests.send({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { _meta: this.meta, notifications: filter } });
    } catch (err) {
      this.listenId = undefined;
      this.logger.debug({ msg: 'subscriptions/listen not sent', backend: this.config.name, detail: describeFailure(err) });
    }
  }

  private onMessage(message: unknown): void {
    const id = this.listenId;
    if (id === undefined) return; // progress, logs, late answers
    const parsed = readListenMessage(message);
    if (!parsed || !belongsToSubscription(parsed, id)) return;
    const event = listenEventOf(parsed, id);
    if (event.kind === 'tools_changed') this.events.onListChanged();
    else if (event.kind === 'offerings_changed') this.events.onOfferingsChanged?.(event.offering);
    else if (event.kind === 'acknowledged') this.acknowledged(event.toolsListChanged, event.offeringsListChanged);
    else if (event.kind === 'closed') this.endListen('ended by the backend');
  }

  /**
   * What the server granted: nothing ends the subscription; tools refused while resources or
   * prompts are granted keeps it, and lists again so the tools' TTL schedules itself.
   */
  private acknowledged(tools: boolean, offerings: boolean): void {
    if (!tools && !offerings) return this.endListen('not granted');
    if (!tools && this.toolsGranted) {
      this.toolsGranted = false;
      this.session.listAgain();
    }
  }

  /**
   * The subscription is over while the child lives (refused, or closed by the server): list again
   * now, so the next listing schedules itself by TTL alone instead of waiting for notifications.
   */
  private endListen(why: string): void {
    this.listenId = undefined;
    this.logger.debug({ msg: 'subscriptions/listen over', backend: this.config.name, why });
    this.session.listAgain();
  }
}

function isTimeout(err: unknown): boolean {
  return err instanceof McpError && mcpErrorCode(err) === ErrorCode.RequestTimeout;
}

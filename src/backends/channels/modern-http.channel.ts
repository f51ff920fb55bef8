import type { ClientRequest } from 'node:http';
import { Logger } from '@nestjs/common';
import type { HttpBackendConfig } from '../../config/config.types';
import type { BackendToolResult } from '../backends.types';
import { describeFailure } from '../domain/backend-failures';
import type { RoundAnswer } from '../domain/input-required';
import { CLIENT_INFO, MAX_RESPONSE_BYTES } from '../domain/limits';
import { type ListenFilter, type ModernTool, type ProbeVerdict, readListenEvent, requestMeta } from '../domain/modern-protocol';
import { type ParamHeader, paramHeadersOf, paramHeaderValues } from '../domain/param-headers';
import { HttpCallClient } from '../protocol/http-call-client';
import { ModernSession, type ModernWire } from '../protocol/modern-session';
import type { HttpSessionInfo } from '../transports/http-client.transport';
import type { OfferingCapabilities } from '../../registry/domain/offerings';
import type { BackendChannel, ChannelCall, ChannelEvents, OfferingRequest } from './backend-channel';
import type { EraProbe } from './era-probing.channel';
import { reportRequestFailure } from './transport-errors';

/** First wait before a `subscriptions/listen` stream that ended is opened again; doubles to the max. */
const LISTEN_RETRY_MS = { first: 1_000, max: 30_000 } as const;

/**
 * A Streamable HTTP backend of the 2026-07-28 era ("modern"): what every modern channel does is its
 * `ModernSession`'s; this channel is its wire over HTTP. No `initialize`, no session; every request
 * carries the version and the router's (empty) capabilities in `_meta`, and every POST the
 * `Mcp-Method`/`Mcp-Name` headers. See docs/backend-eras.md.
 * - Requests and calls take the router's own pooled POST (HttpCallClient), as for a 2025 backend:
 *   no SDK client on the hot path.
 * - Tool parameters annotated with `x-mcp-header` are mirrored into `Mcp-Param-*` headers.
 * - Resources and prompts are those discovery declares, read through the session.
 * - Change notifications come on a `subscriptions/listen` stream (it replaced the GET stream); an
 *   abrupt end of it is a suspicion the supervisor checks with `ping` (here `server/discover`).
 */
export class ModernHttpChannel implements BackendChannel, EraProbe {
  readonly pid = undefined;
  readonly era = 'modern' as const;
  private readonly logger = new Logger(ModernHttpChannel.name);
  private readonly session: ModernSession;
  private readonly calls: HttpCallClient;
  private readonly address: HttpSessionInfo = { envelope: { meta: requestMeta(CLIENT_INFO) } };
  /** A listen stream is open and its acknowledgment granted `toolsListChanged`. */
  private listening = false;
  private listenRequest: ClientRequest | undefined;
  private listenSeq = 0;
  private listenRetryMs: number = LISTEN_RETRY_MS.first;
  private listenRetryTimer: NodeJS.Timeout | undefined;
  /** Tools whose arguments are mirrored into `Mcp-Param-*` headers, from the last listing. */
  private paramHeaders = new Map<string, readonly ParamHeader[]>();

  constructor(
    private readonly config: HttpBackendConfig,
    private readonly events: ChannelEvents,
    random: () => number = Math.random,
  ) {
    const wire: ModernWire = {
      request: (method, params, timeoutMs, name) => this.calls.request(this.address, method, params, timeoutMs, name),
      callRound: (call, deadline, requestState) => this.callRound(call, deadline, requestState),
      listen: (filter) => this.listen(filter),
      listening: () => this.listening,
      // A failed request may be the only sign the backend is gone.
      report: (err) => reportRequestFailure(err, events),
    };
    this.session = new ModernSession(config.name, wire, events, random);
    this.calls = new HttpCallClient({ backend: config.name, url: new URL(config.url), headers: config.headers, maxResponseBytes: MAX_RESPONSE_BYTES });
  }

  /** The era probe: `server/discover` read as Streamable HTTP "Backward Compatibility" reads it. */
  probe(timeoutMs: number): Promise<ProbeVerdict> {
    return this.session.discover(timeoutMs);
  }

  async connect(timeoutMs: number): Promise<void> {
    this.session.accept(await this.session.discover(timeoutMs));
  }

  afterConnect(): void {
    this.session.afterConnect();
  }

  async listTools(pageTimeoutMs: () => number): Promise<ModernTool[]> {
    return this.withParamHeaders(await this.session.listTools(pageTimeoutMs));
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

  /** Rejects rather than throws: a supervisor that closes without waiting goes on to its retry. */
  close(): Promise<void> {
    try {
      if (!this.session.open) return Promise.resolve();
      this.session.close();
      clearTimeout(this.listenRetryTimer);
      this.listenRequest?.destroy();
      this.calls.close();
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err);
    }
  }

  kill(): void {
    // No process of the router's own behind an HTTP backend.
  }

  describeFailure(err: unknown): string {
    return describeFailure(err);
  }

  /** One round of a call, with the tool's `Mcp-Param-*` headers. */
  private callRound({ tool, arguments: args, timeoutMs, trace }: ChannelCall, deadline: number, requestState: string | undefined): Promise<RoundAnswer> {
    const annotated = this.paramHeaders.get(tool);
    const params = annotated ? paramHeaderValues(annotated, args) : undefined;
    return this.calls.callToolRound(this.address, tool, args, deadline, timeoutMs, params, requestState, trace);
  }

  /**
   * Keeps the `x-mcp-header` annotations of each tool for its calls, and leaves out a tool whose
   * annotations are invalid (spec "Custom Headers from Tool Parameters": a client MUST exclude it
   * and SHOULD warn, so one bad definition does not cost the others).
   */
  private withParamHeaders(tools: ModernTool[]): ModernTool[] {
    const headers = new Map<string, readonly ParamHeader[]>();
    const kept = tools.filter((tool) => {
      const found = paramHeadersOf(tool.inputSchema);
      if ('invalid' in found) {
        this.logger.warn({ msg: 'tool left out of the catalog', backend: this.config.name, tool: tool.name, reason: found.invalid });
        return false;
      }
      if (found.length > 0) headers.set(tool.name, found);
      return true;
    });
    this.paramHeaders = headers;
    return kept;
  }

  /**
   * Opens `subscriptions/listen` for the list changes `filter` names on a stream of its own. An
   * abrupt end may be the backend's death (the supervisor checks with a ping); the stream is opened
   * again after 1 s, doubling to 30 s, and starting over once a stream was acknowledged.
   */
  private listen(filter: ListenFilter): void {
    if (!this.session.open) return;
    const id = `listen${++this.listenSeq}`;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'subscriptions/listen',
      params: { _meta: this.address.envelope?.meta, notifications: filter },
    });
    let graceful = false;
    let acknowledged = false;
    const req = this.calls.stream(body, this.address, 'subscriptions/listen', {
      onMessage: (message) => {
        const event = readListenEvent(message, id);
        if (event.kind === 'acknowledged') {
          acknowledged = true;
          this.listening = event.toolsListChanged;
        } else if (event.kind === 'tools_changed') this.events.onListChanged();
        else if (event.kind === 'offerings_changed') this.events.onOfferingsChanged?.(event.offering);
        else if (event.kind === 'closed') graceful = true;
      },
      onRefused: (status) => {
        // Not a listen stream (a JSON error, say): no notifications; TTL re-lists still run.
        this.logger.debug({ msg: 'subscriptions/listen refused', backend: this.config.name, status });
        graceful = true;
      },
      onEnd: () => {
        if (this.listenRequest !== req) return;
        this.listenRequest = undefined;
        this.listening = false;
        if (!this.session.open) return;
        if (!graceful) this.events.onSuspect();
        if (acknowledged) this.listenRetryMs = LISTEN_RETRY_MS.first;
        this.listenRetryTimer = setTimeout(() => this.listen(filter), this.listenRetryMs);
        this.listenRetryTimer.unref();
        this.listenRetryMs = Math.min(this.listenRetryMs * 2, LISTEN_RETRY_MS.max);
      },
    });
    this.listenRequest = req;
  }
}

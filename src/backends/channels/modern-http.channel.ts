import { type ClientRequest, type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { setTimeout as delay } from 'node:timers/promises';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Logger } from '@nestjs/common';
import type { HttpBackendConfig } from '../../config/config.types';
import type { BackendToolResult } from '../backends.types';
import { ConnectionBrokeError, ConnectionLostError, backendFailure, describeFailure, toRouterError } from '../domain/backend-failures';
import { callInRounds } from '../domain/input-required';
import { CLIENT_INFO, INPUT_RETRY_PAUSE_MS, MAX_INPUT_ROUNDS, MAX_RESPONSE_BYTES } from '../domain/limits';
import {
  announcesToolChanges,
  collectModernTools,
  type ParamHeader,
  paramHeadersOf,
  paramHeaderValues,
  probeVerdict,
  type ProbeVerdict,
  readListenEvent,
  requestHeaders,
  requestMeta,
} from '../domain/modern-protocol';
import { SseReader } from '../domain/sse-reader';
import type { BackendChannel, ChannelCall, ChannelEvents } from './backend-channel';
import { HttpCallClient, type HttpSessionInfo } from './http-call-client';
import { RelistTimer } from './relist-timer';

/** First wait before a `subscriptions/listen` stream that ended is opened again; doubles to the max. */
const LISTEN_RETRY_MS = { first: 1_000, max: 30_000 } as const;

/**
 * A Streamable HTTP backend of the 2026-07-28 era ("modern"): no `initialize`, no session; every
 * request carries the version and the router's (empty) capabilities in `_meta`, and every POST
 * the `Mcp-Method`/`Mcp-Name` headers. See docs/backend-eras.md.
 * - `connect` is `server/discover` (spec "Discovery": servers MUST implement it).
 * - `listTools` pages `tools/list`; the smallest `ttlMs` of the pages schedules the next listing
 *   (`ChannelEvents.onStale`), jittered as the spec asks of a client that polls.
 * - `call` is the router's own pooled POST (HttpCallClient), as for a 2025 backend: no SDK client
 *   on the hot path. A load-shedding `input_required` answer is retried with its `requestState`.
 * - Change notifications come on a `subscriptions/listen` stream (it replaced the GET stream),
 *   opened when discovery says the server announces tool-list changes; an abrupt end of it is a
 *   suspicion the supervisor checks with `ping` (here `server/discover`: 2026 has no `ping`).
 */
export class ModernHttpChannel implements BackendChannel {
  readonly pid = undefined;
  readonly era = 'modern' as const;
  private readonly logger = new Logger(ModernHttpChannel.name);
  private readonly calls: HttpCallClient;
  private readonly session: HttpSessionInfo = { envelope: { meta: requestMeta(CLIENT_INFO) } };
  private closed = false;
  /** Discovery said the backend announces tool-list changes. */
  private announces = false;
  /** A listen stream is open and its acknowledgment granted `toolsListChanged`. */
  private listening = false;
  private listenRequest: ClientRequest | undefined;
  private listenSeq = 0;
  private listenRetryMs: number = LISTEN_RETRY_MS.first;
  private listenRetryTimer: NodeJS.Timeout | undefined;
  private readonly relist: RelistTimer;
  /** Tools whose arguments are mirrored into `Mcp-Param-*` headers, from the last listing. */
  private paramHeaders = new Map<string, readonly ParamHeader[]>();

  constructor(
    private readonly config: HttpBackendConfig,
    private readonly events: ChannelEvents,
    random: () => number = Math.random,
  ) {
    this.relist = new RelistTimer(() => {
      if (!this.closed) this.events.onStale?.();
    }, random);
    this.calls = new HttpCallClient({ backend: config.name, url: new URL(config.url), headers: config.headers, maxResponseBytes: MAX_RESPONSE_BYTES });
  }

  /**
   * `server/discover` with the router's version, read as the spec's era probe (Streamable HTTP,
   * "Backward Compatibility"). Rejects only when the backend cannot be reached or did not answer.
   */
  async probe(timeoutMs: number): Promise<ProbeVerdict> {
    const { status, message } = await this.calls.request(this.session, 'server/discover', {}, timeoutMs);
    const verdict = probeVerdict(status, message);
    if (verdict.era === 'modern') this.announces = announcesToolChanges(message);
    return verdict;
  }

  async connect(timeoutMs: number): Promise<void> {
    const verdict = await this.probe(timeoutMs);
    if (verdict.era === 'none') throw new Error(verdict.reason);
    if (verdict.era === 'legacy') throw new Error('backend does not speak MCP 2026-07-28 (it answered discovery as a 2025 server); set era: auto or legacy');
    this.afterConnect();
  }

  /** Called once discovery proved the backend modern: opens the change stream if it has one. */
  afterConnect(): void {
    if (this.announces) this.openListen();
  }

  async listTools(pageTimeoutMs: () => number): Promise<Tool[]> {
    const { tools, ttlMs } = await collectModernTools(async (params) => (await this.rpc('tools/list', params, pageTimeoutMs())).message, this.config.name);
    if (!this.closed) this.relist.schedule(ttlMs, this.listening);
    return this.withParamHeaders(tools);
  }

  /**
   * Keeps the `x-mcp-header` annotations of each tool for its calls, and leaves out a tool whose
   * annotations are invalid (spec "Custom Headers from Tool Parameters": a client MUST exclude it
   * and SHOULD warn, so one bad definition does not cost the others).
   */
  private withParamHeaders(tools: Tool[]): Tool[] {
    const headers = new Map<string, readonly ParamHeader[]>();
    const kept = tools.filter((tool) => {
      const found = paramHeadersOf((tool as { inputSchema?: unknown }).inputSchema);
      if ('invalid' in found) {
        this.logger.warn({ msg: 'tool left out of the catalog', backend: this.config.name, tool: String(tool.name), reason: found.invalid });
        return false;
      }
      if (found.length > 0) headers.set(tool.name, found);
      return true;
    });
    this.paramHeaders = headers;
    return kept;
  }

  /**
   * One `tools/call`, run as a multi round-trip request (spec basic/patterns/mrtr): a backend
   * shedding load may answer `input_required` with only a `requestState`, and the call is sent
   * again with it, within this call's deadline (`callInRounds`).
   */
  async call(request: ChannelCall): Promise<BackendToolResult> {
    const deadline = Date.now() + request.timeoutMs;
    try {
      const annotated = this.paramHeaders.get(request.tool);
      const params = annotated ? paramHeaderValues(annotated, request.arguments) : undefined;
      const send = (requestState: string | undefined) =>
        // A channel closed during a pause between rounds sends nothing more.
        this.closed
          ? Promise.reject(backendFailure.notConnected(this.config.name))
          : this.calls.callToolRound(this.session, request.tool, request.arguments, deadline, request.timeoutMs, params, requestState);
      return await callInRounds(send, {
        backend: this.config.name,
        timeoutMs: request.timeoutMs,
        maxRounds: MAX_INPUT_ROUNDS,
        pauseMs: INPUT_RETRY_PAUSE_MS,
        remainingMs: () => deadline - Date.now(),
        pause: (ms) => delay(ms),
      });
    } catch (err) {
      this.report(err);
      throw toRouterError(err, this.config.name, request.timeoutMs);
    }
  }

  /** 2026-07-28 has no `ping`: a discovery that answers is the liveness proof. */
  async ping(timeoutMs: number): Promise<void> {
    const verdict = await this.probe(timeoutMs);
    if (verdict.era !== 'modern') throw new Error('backend no longer answers discovery as a 2026-07-28 server');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.relist.stop();
    clearTimeout(this.listenRetryTimer);
    this.listenRequest?.destroy();
    this.calls.close();
  }

  kill(): void {
    // No process of the router's own behind an HTTP backend.
  }

  describeFailure(err: unknown): string {
    return describeFailure(err);
  }

  /** A JSON-RPC request outside the hot path; a failure that says the backend is gone is reported. */
  private async rpc(method: string, params: Record<string, unknown>, timeoutMs: number): Promise<{ status: number; message: unknown }> {
    try {
      return await this.calls.request(this.session, method, params, timeoutMs);
    } catch (err) {
      this.report(err);
      throw err;
    }
  }

  private report(err: unknown): void {
    if (this.closed) return;
    if (err instanceof ConnectionLostError) this.events.onLost(err.message);
    else if (err instanceof ConnectionBrokeError) this.events.onSuspect();
  }

  /**
   * Opens `subscriptions/listen` for tool-list changes on a socket of its own (it stays open; the
   * pool is for calls). Each event is capped like an answer; the stream as a whole is not.
   */
  private openListen(): void {
    if (this.closed) return;
    const id = `listen${++this.listenSeq}`;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { _meta: this.session.envelope?.meta, notifications: { toolsListChanged: true } } });
    const url = new URL(this.config.url);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, {
      method: 'POST',
      agent: false,
      headers: {
        ...this.config.headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': Buffer.byteLength(body),
        ...requestHeaders('subscriptions/listen'),
      },
    });
    this.listenRequest = req;
    let graceful = false;
    let acknowledged = false;
    const ended = () => {
      if (this.listenRequest !== req) return;
      this.listenRequest = undefined;
      this.listening = false;
      if (this.closed) return;
      // An abrupt end may be the backend's death: the supervisor checks with a ping.
      if (!graceful) this.events.onSuspect();
      if (acknowledged) this.listenRetryMs = LISTEN_RETRY_MS.first;
      this.listenRetryTimer = setTimeout(() => this.openListen(), this.listenRetryMs);
      this.listenRetryTimer.unref();
      this.listenRetryMs = Math.min(this.listenRetryMs * 2, LISTEN_RETRY_MS.max);
    };
    req.on('error', ended);
    req.on('close', ended);
    req.on('response', (res: IncomingMessage) => {
      const stream = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
      if (res.statusCode !== 200 || !stream) {
        // Not a listen stream (a JSON error, say): no notifications; TTL re-lists still run.
        this.logger.debug({ msg: 'subscriptions/listen refused', backend: this.config.name, status: res.statusCode });
        graceful = true;
        res.resume();
        return;
      }
      const reader = new SseReader();
      const decoder = new StringDecoder('utf8');
      let pending = 0;
      res.on('data', (chunk: Buffer) => {
        pending += chunk.length;
        if (pending > MAX_RESPONSE_BYTES) return void req.destroy();
        for (const data of reader.push(decoder.write(chunk))) {
          pending = 0;
          const event = readListenEvent(parseJson(data), id);
          if (event.kind === 'acknowledged') {
            acknowledged = true;
            this.listening = event.toolsListChanged;
          } else if (event.kind === 'tools_changed') this.events.onListChanged();
          else if (event.kind === 'closed') graceful = true;
        }
      });
      res.on('error', () => undefined);
    });
    req.end(body);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

import type { ClientRequest } from 'node:http';
import type { RouterError } from '../../common/router-error';
import type { BackendToolResult, CallTrace } from '../backends.types';
import { traceFields, withFields } from '../domain/trace-meta';
import { backendFailure } from '../domain/backend-failures';
import { type CallAnswer, modernOutcomeOf, outcomeOf, readCallAnswer } from '../domain/call-answer';
import type { RoundAnswer } from '../domain/input-required';
import { stringIdOf } from '../domain/wire';
import {
  HttpClientTransport,
  type HttpClientTransportOptions,
  type HttpSessionInfo,
  type Post,
  type PostReplies,
  type StreamEvents,
  UNREADABLE,
} from '../transports/http-client.transport';
import { RequestTracker } from './request-tracker';

/** A JSON-RPC exchange outside the hot path (`server/discover`, `tools/list`, …): status and message. */
export interface HttpRpcAnswer {
  status: number;
  /** The answer to the request, or, for a JSON body, whatever message it held; undefined if not JSON. */
  message: unknown;
}

const MALFORMED: CallAnswer = { kind: 'malformed' };

/**
 * The router's requests to one Streamable HTTP backend: `tools/call` on the hot path, and the
 * 2026-07-28 requests outside it. Ids, deadlines and cancellation are the `RequestTracker`'s; the
 * `HttpClientTransport` below moves each POST and its answer. The SDK transport of a 2025 backend
 * keeps `initialize`, `tools/list`, notifications and the event stream, and hands over its session
 * id and protocol version.
 * - A JSON body is the one answer, whatever it holds; in an event stream, other messages are
 *   skipped (as the SDK client does) until the answer to this request's id.
 * - A request is torn down at its deadline, so a hung call never holds a socket, and a 2025
 *   backend is told with `notifications/cancelled` (spec "Cancellation"), as the SDK client does;
 *   over 2026-07-28 HTTP the torn-down request is the cancellation.
 */
export class HttpCallClient {
  private readonly transport: HttpClientTransport;
  private readonly tracker: RequestTracker<Post>;
  private readonly backend: string;

  constructor(options: HttpClientTransportOptions) {
    this.backend = options.backend;
    const { backend } = options;
    this.tracker = new RequestTracker<Post>({
      // Numbers are the SDK client's ids, so the two never collide.
      idPrefix: 'c',
      timedOut: (timeoutMs) => backendFailure.timedOut(backend, timeoutMs),
      abandon: (post) => post.destroy(),
      cancel: (id, post) => {
        if (!post.session.envelope) this.cancel(post.session, id);
      },
    });
    const replies: PostReplies = {
      answer: (id, message, final, status) => this.tracker.deliver(id, message, final, status),
      failed: (id, err) => this.tracker.fail(id, err),
      closed: (id) => this.tracker.release(id),
    };
    this.transport = new HttpClientTransport(options, replies);
  }

  /** Calls one tool; rejects with a RouterError, or ConnectionLostError when the backend is gone. */
  callTool(
    session: HttpSessionInfo,
    tool: string,
    args: Record<string, unknown>,
    timeoutMs: number,
    /** 2026-07-28 `Mcp-Param-*` headers of this call (the tool's `x-mcp-header` annotations). */
    paramHeaders?: Record<string, string>,
    trace?: CallTrace,
  ): Promise<BackendToolResult> {
    return this.exchangeCall<BackendToolResult>(session, tool, args, Date.now() + timeoutMs, timeoutMs, paramHeaders, undefined, this.readLegacyCall, trace);
  }

  /**
   * One round of a 2026-07-28 multi round-trip `tools/call` (spec basic/patterns/mrtr), on a fresh
   * id, with `requestState` echoed when the round is a retry. Resolves with the result or the
   * backend's `input_required`; `deadline` is the whole call's, `timeoutMs` only names it in the
   * timeout's message.
   */
  callToolRound(
    session: HttpSessionInfo,
    tool: string,
    args: Record<string, unknown>,
    deadline: number,
    timeoutMs: number,
    paramHeaders: Record<string, string> | undefined,
    requestState: string | undefined,
    trace?: CallTrace,
  ): Promise<RoundAnswer> {
    return this.exchangeCall<RoundAnswer>(session, tool, args, deadline, timeoutMs, paramHeaders, requestState, this.readRound, trace);
  }

  /**
   * One JSON-RPC request outside the hot path, on the same pool, cap and deadline. A 4xx answer
   * with a JSON body is an answer too (a 2026-07-28 server sends its version errors so), and so is
   * a body that is not JSON (`message` undefined): the caller judges them. `name` goes in the
   * `Mcp-Name` header of a 2026-07-28 request that has one (`resources/read`, `prompts/get`).
   */
  async request(session: HttpSessionInfo, method: string, params: Record<string, unknown>, timeoutMs: number, name?: string): Promise<HttpRpcAnswer> {
    const id = this.tracker.nextId();
    const withMeta = session.envelope ? { ...params, _meta: session.envelope.meta } : params;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: withMeta });
    const post = this.transport.post(id, body, session, { method, ...(name === undefined ? {} : { name }), errorStatusAnswers: true });
    return this.tracker.track(id, timeoutMs, timeoutMs, this.readRpc, post, true);
  }

  /**
   * A long-lived POST read as an event stream (`subscriptions/listen`): its own socket, each event
   * capped like an answer; not tracked here (its messages are the stream's owner's to read).
   */
  stream(body: string, session: HttpSessionInfo, method: string, events: StreamEvents): ClientRequest {
    return this.transport.stream(body, session, method, events);
  }

  /** Closes the pool's sockets; requests in flight fail. */
  close(): void {
    this.transport.close();
  }

  private exchangeCall<T>(
    session: HttpSessionInfo,
    tool: string,
    args: Record<string, unknown>,
    deadline: number,
    timeoutMs: number,
    paramHeaders: Record<string, string> | undefined,
    requestState: string | undefined,
    read: (message: unknown, id: string, final: boolean) => T | Error | undefined,
    trace: CallTrace | undefined,
  ): Promise<T> {
    // Not async (the tracker's promise is handed on as is), yet it never throws: a request that
    // cannot even be sent (a header Node refuses, say) rejects like any failed call.
    try {
      const id = this.tracker.nextId();
      // The 2025 call builds the same params as before; only a retry carries `requestState`.
      // One carrier for both: the headers and `_meta` only read it.
      const traceHeaders = traceFields(trace);
      const meta = withFields(session.envelope?.meta, traceHeaders);
      const params =
        requestState === undefined
          ? meta === undefined
            ? { name: tool, arguments: args }
            : { name: tool, arguments: args, _meta: meta }
          : { name: tool, arguments: args, requestState, ...(meta ? { _meta: meta } : {}) };
      const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params });
      const post = this.transport.post(id, body, session, {
        method: 'tools/call',
        name: tool,
        paramHeaders,
        traceHeaders,
        errorStatusAnswers: false,
      });
      return this.tracker.track(id, Math.max(1, deadline - Date.now()), timeoutMs, read, post, true);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Fire and forget: the call already answered `error`; the backend may stop its work. */
  private cancel(session: HttpSessionInfo, requestId: string): void {
    const body = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'deadline passed' } });
    this.transport.notify(body, session, 'notifications/cancelled');
  }

  /** Bound once each, so a call allocates no reader of its own. */
  private readonly readLegacyCall = (message: unknown, id: string, final: boolean) => this.readCall(message, id, final, outcomeOf);
  private readonly readRound = (message: unknown, id: string, final: boolean) => this.readCall(message, id, final, modernOutcomeOf);

  private readCall<T>(
    message: unknown,
    id: string,
    final: boolean,
    outcome: (answer: CallAnswer, backend: string) => T | RouterError,
  ): T | RouterError | undefined {
    const answer = message === UNREADABLE ? MALFORMED : readCallAnswer(message, id);
    // In an event stream, other messages are skipped; a JSON body is the one answer, whatever it holds.
    if (!final && (answer.kind === 'other' || message === UNREADABLE)) return undefined;
    return outcome(answer, this.backend);
  }

  private readonly readRpc = (message: unknown, id: string, final: boolean, status: number): HttpRpcAnswer | undefined => {
    if (!final && stringIdOf(message) !== id) return undefined;
    return { status, message: message === UNREADABLE ? undefined : message };
  };
}

import { Agent as HttpAgent, type ClientRequest, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { RouterError } from '../../common/router-error';
import type { BackendToolResult } from '../backends.types';
import { backendFailure, ConnectionBrokeError, ConnectionLostError, ResponseTooLargeError } from '../domain/backend-failures';
import { type CallAnswer, modernOutcomeOf, outcomeOf, readCallAnswer } from '../domain/call-answer';
import type { RoundAnswer } from '../domain/input-required';
import { CANCEL_TIMEOUT_MS, HTTP_IDLE_SOCKET_MS, HTTP_MAX_SOCKETS } from '../domain/limits';
import { requestHeaders } from '../domain/modern-protocol';
import { SseReader } from '../domain/sse-reader';

/**
 * How a request is addressed to the backend. 2025 eras: what the SDK transport agreed in
 * `initialize` (Streamable HTTP, spec 2025-06-18). 2026-07-28: no session; `envelope` is the
 * `_meta` every request carries, and the POST gets the `Mcp-Method`/`Mcp-Name` headers.
 */
export interface HttpSessionInfo {
  sessionId?: string;
  protocolVersion?: string;
  envelope?: { meta: Record<string, unknown> };
}

/** A JSON-RPC exchange outside the hot path (`server/discover`, `tools/list`, …): status and message. */
export interface HttpRpcAnswer {
  status: number;
  /** The answer to the request, or, for a JSON body, whatever message it held; undefined if not JSON. */
  message: unknown;
}

export interface HttpCallClientOptions {
  backend: string;
  url: URL;
  /** The backend's configured headers: never a caller's (architecture §10). */
  headers: Record<string, string>;
  maxResponseBytes: number;
  /** Connections open to the backend at most; calls beyond wait for one within their deadline. */
  maxSockets?: number;
}

/** Prefix of this client's request ids: numbers are the SDK client's, so the two never collide. */
const ID_PREFIX = 'c';

/**
 * `tools/call` over Streamable HTTP on a pooled `node:http` client. The SDK's client path (fetch,
 * web streams, one AbortSignal per transport) costs ~530 µs of CPU per call here against ~80 µs for
 * a pooled request (BENCHMARKS.md item 1); calls are the router's hot path, so they take this one.
 * The SDK transport keeps `initialize`, `tools/list`, notifications and the event stream, and hands
 * over its session id and protocol version.
 * - Answers may be JSON or an event stream (spec "Sending Messages to the Server"); the stream is
 *   read until the answer to this request's id; notifications on it are not relayed.
 * - The answer is capped like a stdio line, counted as it arrives: an oversized answer fails its
 *   own call and is never buffered whole.
 * - A request is destroyed at its deadline, so a hung call never holds a socket, and the backend
 *   is told with `notifications/cancelled` (spec "Cancellation"), as the SDK client does.
 * - Redirects are refused (backend URLs come only from config, issue #6).
 */
export class HttpCallClient {
  private readonly agent: HttpAgent;
  private readonly send: typeof httpRequest;
  private nextId = 0;

  constructor(private readonly options: HttpCallClientOptions) {
    const secure = options.url.protocol === 'https:';
    // Node's Agent shortens the idle time to the server's Keep-Alive hint, when it sends one.
    const agentOptions = { keepAlive: true, timeout: HTTP_IDLE_SOCKET_MS, scheduling: 'lifo' as const, maxSockets: options.maxSockets ?? HTTP_MAX_SOCKETS };
    this.agent = secure ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
    this.send = secure ? httpsRequest : httpRequest;
  }

  /** Calls one tool; rejects with a RouterError, or ConnectionLostError when the backend is gone. */
  callTool(
    session: HttpSessionInfo,
    tool: string,
    args: Record<string, unknown>,
    timeoutMs: number,
    /** 2026-07-28 `Mcp-Param-*` headers of this call (the tool's `x-mcp-header` annotations). */
    paramHeaders?: Record<string, string>,
  ): Promise<BackendToolResult> {
    return this.exchangeCall(session, tool, args, Date.now() + timeoutMs, timeoutMs, paramHeaders, undefined, outcomeOf);
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
  ): Promise<RoundAnswer> {
    return this.exchangeCall(session, tool, args, deadline, timeoutMs, paramHeaders, requestState, modernOutcomeOf);
  }

  private async exchangeCall<T>(
    session: HttpSessionInfo,
    tool: string,
    args: Record<string, unknown>,
    deadline: number,
    timeoutMs: number,
    paramHeaders: Record<string, string> | undefined,
    requestState: string | undefined,
    outcome: (answer: CallAnswer, backend: string) => T | RouterError,
  ): Promise<T> {
    const id = `${ID_PREFIX}${++this.nextId}`;
    // The 2025 call builds the same params as before; only a retry carries `requestState`.
    const params =
      requestState === undefined
        ? { name: tool, arguments: args, ...(session.envelope ? { _meta: session.envelope.meta } : {}) }
        : { name: tool, arguments: args, requestState, ...(session.envelope ? { _meta: session.envelope.meta } : {}) };
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params });
    const { backend } = this.options;
    const exchange: Exchange<T> = {
      session, id, body, method: 'tools/call', name: tool, paramHeaders, deadline, timeoutMs, errorStatusAnswers: false,
      read: (message, inStream) => {
        const answer = message === UNREADABLE ? ({ kind: 'malformed' } as const) : readCallAnswer(message, id);
        // In an event stream, other messages are skipped (as the SDK client does); a JSON body is
        // the one answer, whatever it holds.
        if (inStream && (answer.kind === 'other' || message === UNREADABLE)) return undefined;
        return outcome(answer, backend);
      },
    };
    try {
      return await this.post(exchange);
    } catch (err) {
      // 2026-07-28 over HTTP: the torn-down request is the cancellation (spec "Cancellation").
      if (err instanceof RouterError && err.code === 'backend_timeout' && !session.envelope) this.cancel(session, id);
      // Node's docs: a reused keep-alive socket the server closed as the request went out; the
      // request never reached the server, so it is sent once more.
      if (!(err instanceof StaleSocketError)) throw err;
      return this.post(exchange);
    }
  }

  /**
   * One JSON-RPC request outside the hot path, on the same pool, cap and deadline. A 4xx answer
   * with a JSON body is an answer too (a 2026-07-28 server sends its version errors so), and so is
   * a body that is not JSON (`message` undefined): the caller judges them.
   */
  async request(session: HttpSessionInfo, method: string, params: Record<string, unknown>, timeoutMs: number): Promise<HttpRpcAnswer> {
    const id = `${ID_PREFIX}${++this.nextId}`;
    const withMeta = session.envelope ? { ...params, _meta: session.envelope.meta } : params;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: withMeta });
    let status = 0;
    const exchange: Exchange<HttpRpcAnswer> = {
      session, id, body, method, deadline: Date.now() + timeoutMs, timeoutMs, errorStatusAnswers: true,
      onStatus: (s) => (status = s),
      read: (message, inStream) => {
        const mine = typeof message === 'object' && message !== null && (message as { id?: unknown }).id === id;
        if (inStream && !mine) return undefined;
        return { status, message: message === UNREADABLE ? undefined : message };
      },
    };
    try {
      return await this.post(exchange);
    } catch (err) {
      if (!(err instanceof StaleSocketError)) throw err;
      return this.post(exchange);
    }
  }

  /** Closes the pool's sockets; calls in flight fail. */
  close(): void {
    this.agent.destroy();
  }

  private post<T>(exchange: Exchange<T>): Promise<T> {
    const { backend } = this.options;
    const { session, body } = exchange;
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      let responded = false;
      const req = this.open(session, body, exchange.method, exchange.name, exchange.paramHeaders);
      const settle = (outcome: Error | T) => {
        if (settled) return;
        settled = true;
        if (outcome instanceof Error) {
          clearTimeout(timer);
          req.destroy();
          reject(outcome);
        } else resolve(outcome);
      };
      // Kept after an answer read from an event stream, until the stream ends: a server that never
      // ends it does not hold the socket past the deadline.
      const timer = setTimeout(() => {
        if (settled) req.destroy();
        else settle(backendFailure.timedOut(backend, exchange.timeoutMs));
      }, Math.max(1, exchange.deadline - Date.now()));
      req.on('close', () => clearTimeout(timer));
      req.on('error', (err) => settle(this.socketFailure(err, !responded && req.reusedSocket)));
      req.on('response', (res) => {
        responded = true;
        exchange.onStatus?.(res.statusCode ?? 0);
        const refusal = this.refusal(res, session, exchange.errorStatusAnswers);
        if (refusal) {
          res.resume();
          return settle(refusal);
        }
        this.readAnswer(res, exchange, settle);
      });
    });
  }

  /** Reads a JSON or event-stream answer, capped, and settles with what `exchange.read` makes of it. */
  private readAnswer<T>(res: IncomingMessage, exchange: Exchange<T>, settle: (outcome: Error | T) => void): void {
    const { backend, maxResponseBytes } = this.options;
    /** True once `text` settled the exchange. */
    const take = (text: string, inStream: boolean): boolean => {
      const outcome = exchange.read(parseMessage(text), inStream);
      if (outcome === undefined) return false;
      settle(outcome);
      return true;
    };
    const stream = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
    const reader = stream ? new SseReader() : undefined;
    const decoder = stream ? new StringDecoder('utf8') : undefined;
    const chunks: Buffer[] = [];
    let seen = 0;
    let answered = false;
    res.on('data', (chunk: Buffer) => {
      // Bytes are counted before any decoding: an oversized answer costs no string work.
      seen += chunk.length;
      if (seen > maxResponseBytes) return settle(new ResponseTooLargeError(maxResponseBytes));
      if (!reader || !decoder) return void chunks.push(chunk);
      // After the answer the rest of the stream is drained, so the socket goes back to the pool.
      if (answered) return;
      for (const event of reader.push(decoder.write(chunk))) if ((answered = take(event, true))) return;
    });
    res.on('end', () => {
      if (!reader) {
        take(Buffer.concat(chunks, seen).toString('utf8'), false);
      } else settle(new RouterError('backend_failed', `backend ${backend} ended its answer stream without a result`));
    });
    res.on('error', (err) => settle(this.socketFailure(err, false)));
  }

  /**
   * A socket error as the caller should see it: a refused connection means the backend is gone; a
   * reset on a reused socket before any answer is a stale pooled socket; anything else (a reset
   * mid-answer, say) fails this call and leaves the verdict on the backend to the connection.
   */
  private socketFailure(err: Error, reusedBeforeAnswer: boolean): ConnectionLostError | StaleSocketError | ConnectionBrokeError {
    const code = (err as { code?: unknown }).code;
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH') {
      return new ConnectionLostError(`backend ${this.options.backend} is unreachable (${code})`);
    }
    if (reusedBeforeAnswer && (code === 'ECONNRESET' || code === 'EPIPE')) return new StaleSocketError();
    return new ConnectionBrokeError(`connection to backend ${this.options.backend} broke (${typeof code === 'string' ? code : err.message})`);
  }

  /** Why a response cannot hold this call's answer, before its body is read; undefined if it can. */
  private refusal(res: IncomingMessage, session: HttpSessionInfo, errorStatusAnswers: boolean): Error | undefined {
    const { backend, maxResponseBytes } = this.options;
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400) return new RouterError('backend_failed', `backend ${backend} answered a redirect (${status}); redirects are not followed`);
    // Spec "Session Management": 404 to a request with a session id means the session is gone.
    if (status === 404 && session.sessionId !== undefined) return new ConnectionLostError(`backend ${backend} no longer knows the session (HTTP 404)`);
    const answers = (status >= 200 && status < 300) || (errorStatusAnswers && status >= 400 && status < 500);
    if (!answers) return new RouterError('backend_failed', `backend ${backend} answered HTTP ${status}`);
    if (Number(res.headers['content-length'] ?? 0) > maxResponseBytes) return new ResponseTooLargeError(maxResponseBytes);
    return undefined;
  }

  /**
   * A POST of one JSON-RPC message to the backend, on the pool, with only its configured headers
   * and, to a 2026-07-28 backend, the MCP request headers (spec "Request Metadata").
   */
  private open(session: HttpSessionInfo, body: string, method: string, name?: string, paramHeaders?: Record<string, string>): ClientRequest {
    const req = this.send(this.options.url, {
      method: 'POST',
      agent: this.agent,
      headers: {
        ...this.options.headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': Buffer.byteLength(body),
        ...(session.sessionId !== undefined ? { 'mcp-session-id': session.sessionId } : {}),
        ...(session.protocolVersion !== undefined ? { 'mcp-protocol-version': session.protocolVersion } : {}),
        ...(session.envelope ? requestHeaders(method, name) : {}),
        ...paramHeaders,
      },
    });
    req.end(body);
    return req;
  }

  /** Fire and forget: the call already answered `error`; the backend may stop its work. */
  private cancel(session: HttpSessionInfo, requestId: string): void {
    const body = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'deadline passed' } });
    const req = this.open(session, body, 'notifications/cancelled');
    req.setTimeout(CANCEL_TIMEOUT_MS);
    req.on('response', (res) => res.resume());
    req.on('timeout', () => req.destroy());
    req.on('error', () => undefined);
  }
}

interface Exchange<T> {
  session: HttpSessionInfo;
  id: string;
  body: string;
  /** The JSON-RPC method and, for `tools/call`, the tool: mirrored into 2026 request headers. */
  method: string;
  name?: string;
  paramHeaders?: Record<string, string>;
  deadline: number;
  timeoutMs: number;
  /** A 4xx answer is read as an answer rather than refused (requests outside the hot path). */
  errorStatusAnswers: boolean;
  onStatus?: (status: number) => void;
  /**
   * What one parsed message (or UNREADABLE) settles the exchange with; undefined to keep reading
   * an event stream.
   */
  read: (message: unknown, inStream: boolean) => T | Error | undefined;
}

/** A message that is not JSON. */
const UNREADABLE = Symbol('unreadable');

/** The request went out on a pooled socket the server had already closed: it never arrived. */
class StaleSocketError extends Error {
  constructor() {
    super('stale keep-alive socket');
    this.name = 'StaleSocketError';
  }
}

function parseMessage(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return UNREADABLE;
  }
}

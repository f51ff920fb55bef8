import { Agent as HttpAgent, type ClientRequest, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { RouterError } from '../common/router-error';
import { ResponseTooLargeError } from './backend-transports';
import type { BackendToolResult } from './backends.types';
import { backendFailure } from './domain/backend-failures';
import { type CallAnswer, outcomeOf, readCallAnswer } from './domain/call-answer';
import { SseReader } from './domain/sse-reader';

/** What the SDK transport agreed with the backend in `initialize` (Streamable HTTP, spec 2025-06-18). */
export interface HttpSessionInfo {
  sessionId?: string;
  protocolVersion?: string;
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

/**
 * A failure that says the backend or its session is gone, not just that one call failed: the
 * connection reconnects on it, as it does when the SDK transport reports the same.
 */
export class HttpConnectionLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HttpConnectionLostError';
  }
}

/** A socket that broke during a call: the backend may have crashed, or one connection dropped. */
export class HttpSocketError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HttpSocketError';
  }
}

/**
 * Default bound of connections per backend session: a backend that hangs holds one per call until
 * the deadline, and the router's file descriptors are shared by every backend and caller.
 */
const MAX_SOCKETS = 128;
/** Sockets kept idle in the pool are closed after this long unless the server announced less. */
const IDLE_SOCKET_MS = 30_000;
/** Prefix of this client's request ids: numbers are the SDK client's, so the two never collide. */
const ID_PREFIX = 'c';
/** Bound of the `notifications/cancelled` POST sent after a call's deadline. */
const CANCEL_TIMEOUT_MS = 1_000;

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
    const agentOptions = { keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' as const, maxSockets: options.maxSockets ?? MAX_SOCKETS };
    this.agent = secure ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
    this.send = secure ? httpsRequest : httpRequest;
  }

  /** Calls one tool; rejects with a RouterError, or HttpConnectionLostError when the backend is gone. */
  async callTool(session: HttpSessionInfo, tool: string, args: Record<string, unknown>, timeoutMs: number): Promise<BackendToolResult> {
    const id = `${ID_PREFIX}${++this.nextId}`;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: args } });
    const exchange = { session, id, body, deadline: Date.now() + timeoutMs, timeoutMs };
    try {
      return await this.post(exchange);
    } catch (err) {
      if (err instanceof RouterError && err.code === 'backend_timeout') this.cancel(session, id);
      // Node's docs: a reused keep-alive socket the server closed as the request went out; the
      // request never reached the server, so it is sent once more.
      if (!(err instanceof StaleSocketError)) throw err;
      return this.post(exchange);
    }
  }

  /** Closes the pool's sockets; calls in flight fail. */
  close(): void {
    this.agent.destroy();
  }

  private post(exchange: Exchange): Promise<BackendToolResult> {
    const { backend } = this.options;
    const { session, body } = exchange;
    return new Promise<BackendToolResult>((resolve, reject) => {
      let settled = false;
      let responded = false;
      const req = this.open(session, body);
      const settle = (outcome: Error | BackendToolResult) => {
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
        const refusal = this.refusal(res, session);
        if (refusal) {
          res.resume();
          return settle(refusal);
        }
        this.readAnswer(res, exchange.id, settle);
      });
    });
  }

  /** Reads a JSON or event-stream answer, capped, and settles with the answer to `id`. */
  private readAnswer(res: IncomingMessage, id: string, settle: (outcome: Error | BackendToolResult) => void): void {
    const { backend, maxResponseBytes } = this.options;
    /**
     * True once `text` settled the call. In an event stream, other messages and events that are
     * not JSON are skipped (as the SDK client does); a JSON body is the one answer, whatever it holds.
     */
    const take = (text: string, inStream: boolean): boolean => {
      const answer = parseAnswer(text, id);
      if (inStream && (answer.kind === 'other' || answer.kind === 'unreadable')) return false;
      settle(answer.kind === 'unreadable' ? backendFailure.malformed(backend) : outcomeOf(answer, backend));
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
  private socketFailure(err: Error, reusedBeforeAnswer: boolean): HttpConnectionLostError | StaleSocketError | HttpSocketError {
    const code = (err as { code?: unknown }).code;
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH') {
      return new HttpConnectionLostError(`backend ${this.options.backend} is unreachable (${code})`);
    }
    if (reusedBeforeAnswer && (code === 'ECONNRESET' || code === 'EPIPE')) return new StaleSocketError();
    return new HttpSocketError(`connection to backend ${this.options.backend} broke (${typeof code === 'string' ? code : err.message})`);
  }

  /** Why a response cannot hold this call's answer, before its body is read; undefined if it can. */
  private refusal(res: IncomingMessage, session: HttpSessionInfo): Error | undefined {
    const { backend, maxResponseBytes } = this.options;
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400) return new RouterError('backend_failed', `backend ${backend} answered a redirect (${status}); redirects are not followed`);
    // Spec "Session Management": 404 to a request with a session id means the session is gone.
    if (status === 404 && session.sessionId !== undefined) return new HttpConnectionLostError(`backend ${backend} no longer knows the session (HTTP 404)`);
    if (status < 200 || status >= 300) return new RouterError('backend_failed', `backend ${backend} answered HTTP ${status}`);
    if (Number(res.headers['content-length'] ?? 0) > maxResponseBytes) return new ResponseTooLargeError(maxResponseBytes);
    return undefined;
  }

  /** A POST of one JSON-RPC message to the backend, on the pool, with only its configured headers. */
  private open(session: HttpSessionInfo, body: string): ClientRequest {
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
      },
    });
    req.end(body);
    return req;
  }

  /** Fire and forget: the call already answered `error`; the backend may stop its work. */
  private cancel(session: HttpSessionInfo, requestId: string): void {
    const body = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'deadline passed' } });
    const req = this.open(session, body);
    req.setTimeout(CANCEL_TIMEOUT_MS);
    req.on('response', (res) => res.resume());
    req.on('timeout', () => req.destroy());
    req.on('error', () => undefined);
  }
}

interface Exchange {
  session: HttpSessionInfo;
  id: string;
  body: string;
  deadline: number;
  timeoutMs: number;
}

/** The request went out on a pooled socket the server had already closed: it never arrived. */
class StaleSocketError extends Error {
  constructor() {
    super('stale keep-alive socket');
    this.name = 'StaleSocketError';
  }
}

function parseAnswer(text: string, id: string): CallAnswer | { kind: 'unreadable' } {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { kind: 'unreadable' };
  }
  return readCallAnswer(message, id);
}

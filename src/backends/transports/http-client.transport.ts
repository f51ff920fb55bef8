import { type ClientRequest, type IncomingMessage, request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { urlToHttpOptions } from 'node:url';
import { outsideRequest } from '../../common/request-context';
import { RouterError } from '../../common/router-error';
import { ConnectionBrokeError, ConnectionLostError, ResponseTooLargeError, systemErrorCode } from '../domain/backend-failures';
import { RequestHeadFormat } from '../domain/http-request';
import type { ResponseHead } from '../domain/http-response';
import { CANCEL_TIMEOUT_MS, HTTP_IDLE_SOCKET_MS, HTTP_MAX_SOCKETS } from '../domain/limits';
import { requestHeaders } from '../domain/modern-protocol';
import { SseReader } from '../domain/sse-reader';
import { type Exchange, type ExchangeEvents, Http1Pool } from './http1-pool';

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

export interface HttpClientTransportOptions {
  backend: string;
  url: URL;
  /** The backend's configured headers: never a caller's (architecture §10). */
  headers: Record<string, string>;
  maxResponseBytes: number;
  /** Connections open to the backend at most; calls beyond wait for one within their deadline. */
  maxSockets?: number;
}

/** A message of an answer that is not JSON. */
export const UNREADABLE = Symbol('unreadable');

/**
 * Where the answer to each POST goes, named by the id of the request it carried: the request
 * tracker above this transport (`protocol/http-call-client.ts`).
 */
export interface PostReplies {
  /**
   * One message of POST `id`'s answer (`UNREADABLE` when not JSON), with the response's status.
   * `final`: the message is the JSON body, the one answer whatever it holds; otherwise it came on
   * an event stream, which may carry other messages first. True once nothing more of this answer
   * is wanted: the rest of an event stream is drained, so the socket goes back to the pool.
   */
  answer(id: string, message: unknown, final: boolean, status: number): boolean;
  /** POST `id` failed: refused, over the cap, its socket broke, or its event stream ended without the answer. */
  failed(id: string, err: Error): void;
  /** POST `id`'s request is over: its socket is back in the pool or gone. */
  closed(id: string): void;
}

/** What a POST carries besides its body: the MCP request headers of a 2026-07-28 backend. */
export interface PostOptions {
  /** The JSON-RPC method and, for `tools/call`, the tool: mirrored into 2026 request headers. */
  method: string;
  name?: string;
  paramHeaders?: Record<string, string>;
  /** `traceparent` and `tracestate` of a traced call (W3C Trace Context). */
  traceHeaders?: Record<string, string>;
  /** A 4xx answer is read as an answer rather than refused (requests outside the hot path). */
  errorStatusAnswers: boolean;
}

/**
 * Streamable HTTP on a pool of keep-alive sockets: it moves messages (one POST per request, its
 * answer back) and matches nothing; ids, deadlines and cancellation are the tracker's above it.
 * The SDK's client path (fetch, web streams, one AbortSignal per transport) costs ~530 µs of CPU
 * per call here against ~80 µs for a pooled request (BENCHMARKS.md item 1), and `node:http`'s
 * ClientRequest about five times the instructions of a preformatted request on a pooled socket
 * (`http1-pool.ts`; BENCHMARKS.md "Backend POSTs on sockets"); calls are the router's hot path, so
 * they take the socket pool. The long-lived `stream()` stays on `node:http`.
 * - Answers may be JSON or an event stream (spec "Sending Messages to the Server"); each message of
 *   a stream is handed up until the tracker has the answer.
 * - The answer is capped like a stdio line, counted as it arrives: an oversized answer fails its
 *   own request and is never buffered whole.
 * - Redirects are refused: backend URLs come only from config, and following one would send the
 *   backend's configured credentials to another host.
 */
export class HttpClientTransport {
  private readonly pool: Http1Pool;
  private readonly send: typeof httpRequest;
  /** The backend's URL as request options, for the long-lived stream. */
  private readonly target: RequestOptions;
  /** The request line and the headers every POST carries, formatted and checked once. */
  private readonly format: RequestHeadFormat;
  /** Bound once: every POST's events go to this transport, named by their exchange. */
  private readonly events: ExchangeEvents<Post>;

  constructor(
    private readonly options: HttpClientTransportOptions,
    private readonly replies: PostReplies,
  ) {
    const { url } = options;
    this.pool = new Http1Pool({ url, maxSockets: options.maxSockets ?? HTTP_MAX_SOCKETS, idleMs: HTTP_IDLE_SOCKET_MS });
    this.send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    this.target = urlToHttpOptions(url);
    this.format = new RequestHeadFormat({ path: `${url.pathname}${url.search}`, host: url.host }, options.headers, POST_HEADERS);
    this.events = {
      onHead: (exchange, head) => this.onHead(exchange.owner, head),
      onBody: (exchange, chunk) => this.onBody(exchange.owner, chunk),
      onEnd: (exchange) => this.onEnd(exchange.owner),
      onError: (exchange, err, staleReuse) => this.onError(exchange, err, staleReuse),
      onClose: (exchange) => {
        const post = exchange.owner;
        // Only the exchange that is the POST's now speaks for it: not one given up on a stale socket.
        if (post.exchange === exchange && !post.quiet) this.replies.closed(post.id);
      },
    };
  }

  /**
   * POSTs request `id` (already serialized in `body`) on the pool; its answer and failures go to
   * `PostReplies` under that id. A reused keep-alive socket the server closed as the request went
   * out never delivered it: it is sent once more, on another socket. Throws InvalidHeaderError
   * for a header no request can carry.
   */
  post(id: string, body: string, session: HttpSessionInfo, options: PostOptions): Post {
    const head = this.head(body, session, options.method, options.name, options.paramHeaders, options.traceHeaders);
    const post = new Post(id, body, head, session, options);
    this.start(post);
    return post;
  }

  /**
   * Fire and forget, with a short bound of its own: a notification (`notifications/cancelled`
   * after a call's deadline) whose answer nobody waits for.
   */
  notify(body: string, session: HttpSessionInfo, method: string): void {
    const post = new Post('', body, this.head(body, session, method), session, { method, errorStatusAnswers: true });
    post.quiet = true;
    this.start(post);
    // Past the bound the request is torn down, answered or not (a no-op once it is over).
    outsideRequest(() => setTimeout(() => post.destroy(), CANCEL_TIMEOUT_MS)).unref();
  }

  /**
   * A long-lived POST on a socket of its own (it stays open; the pool is for calls), read as an
   * event stream: each event is capped like an answer, the stream as a whole is not. Used for
   * `subscriptions/listen`.
   */
  stream(body: string, session: HttpSessionInfo, method: string, events: StreamEvents): ClientRequest {
    const req = this.send({ ...this.target, method: 'POST', agent: false, headers: this.headers(body, session, method) });
    req.end(body);
    req.on('error', () => events.onEnd());
    req.on('close', () => events.onEnd());
    req.on('response', (res: IncomingMessage) => {
      const stream = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
      if (res.statusCode !== 200 || !stream) {
        events.onRefused(res.statusCode ?? 0);
        res.resume();
        return;
      }
      const reader = new SseReader();
      const decoder = new StringDecoder('utf8');
      let pending = 0;
      res.on('data', (chunk: Buffer) => {
        pending += chunk.length;
        if (pending > this.options.maxResponseBytes) return void req.destroy();
        for (const data of reader.push(decoder.write(chunk))) {
          pending = 0;
          events.onMessage(parseMessage(data));
        }
      });
      res.on('error', () => undefined);
    });
    return req;
  }

  /** Closes the pool's sockets; requests in flight fail. */
  close(): void {
    this.pool.close();
  }

  private start(post: Post): void {
    post.exchange = this.pool.send(post.head, post.body, post.latin1Head, post, this.events);
  }

  /** A POST's socket failed before its answer ended. */
  private onError(exchange: Exchange<Post>, err: Error, staleReuse: boolean): void {
    const post = exchange.owner;
    if (post.exchange !== exchange || post.quiet) return;
    const failure = this.socketFailure(err, staleReuse);
    if (failure instanceof StaleSocketError && !post.resent) {
      post.resent = true;
      // Its own close must not speak for the POST: the new exchange does now.
      return this.start(post);
    }
    this.replies.failed(post.id, failure);
  }

  private onHead(post: Post, head: ResponseHead): void {
    if (post.quiet) return;
    post.status = head.status;
    const refusal = this.refusal(head, post.session, post.options.errorStatusAnswers);
    // A refused answer's body is read past, so the socket goes back to the pool.
    if (refusal) {
      post.reading = Reading.Refused;
      return this.replies.failed(post.id, refusal);
    }
    if (head.contentType.startsWith('text/event-stream')) {
      post.reading = Reading.Stream;
      post.reader = new SseReader();
      post.decoder = new StringDecoder('utf8');
    } else post.reading = Reading.Json;
  }

  /** Reads a JSON or event-stream answer, capped, and hands its messages up. */
  private onBody(post: Post, chunk: Buffer): void {
    if (post.reading === Reading.Refused || post.quiet) return;
    const { maxResponseBytes } = this.options;
    // Bytes are counted before any decoding: an oversized answer costs no string work.
    post.seen += chunk.length;
    if (post.seen > maxResponseBytes) return this.replies.failed(post.id, new ResponseTooLargeError(maxResponseBytes));
    if (post.reading === Reading.Json) return void post.chunks.push(chunk);
    // After the answer the rest of the stream is drained, so the socket goes back to the pool.
    if (post.answered || !post.reader || !post.decoder) return;
    for (const event of post.reader.push(post.decoder.write(chunk))) {
      if ((post.answered = this.replies.answer(post.id, parseMessage(event), false, post.status))) return;
    }
  }

  private onEnd(post: Post): void {
    if (post.reading === Reading.Refused || post.quiet) return;
    if (post.reading === Reading.Json) {
      const text = post.chunks.length === 1 ? post.chunks[0].toString('utf8') : Buffer.concat(post.chunks, post.seen).toString('utf8');
      this.replies.answer(post.id, parseMessage(text), true, post.status);
    } else if (!post.answered) {
      this.replies.failed(post.id, new RouterError('backend_failed', `backend ${this.options.backend} ended its answer stream without a result`));
    }
  }

  /**
   * A socket error as the caller should see it: a refused connection means the backend is gone; a
   * reset on a reused socket before any answer is a stale pooled socket; anything else (a reset
   * mid-answer, say) fails this request and leaves the verdict on the backend to the connection.
   */
  private socketFailure(err: Error, reusedBeforeAnswer: boolean): ConnectionLostError | StaleSocketError | ConnectionBrokeError {
    const code = systemErrorCode(err);
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH') {
      return new ConnectionLostError(`backend ${this.options.backend} is unreachable (${code})`);
    }
    if (reusedBeforeAnswer && (code === 'ECONNRESET' || code === 'EPIPE')) return new StaleSocketError();
    return new ConnectionBrokeError(`connection to backend ${this.options.backend} broke (${code ?? err.message})`);
  }

  /** Why a response cannot hold this request's answer, before its body is read; undefined if it can. */
  private refusal(head: ResponseHead, session: HttpSessionInfo, errorStatusAnswers: boolean): Error | undefined {
    const { backend, maxResponseBytes } = this.options;
    const { status } = head;
    if (status >= 300 && status < 400)
      return new RouterError('backend_failed', `backend ${backend} answered a redirect (${status}); redirects are not followed`);
    // Spec "Session Management": 404 to a request with a session id means the session is gone.
    if (status === 404 && session.sessionId !== undefined) return new ConnectionLostError(`backend ${backend} no longer knows the session (HTTP 404)`);
    const answers = (status >= 200 && status < 300) || (errorStatusAnswers && status >= 400 && status < 500);
    if (!answers) return new RouterError('backend_failed', `backend ${backend} answered HTTP ${status}`);
    if ((head.contentLength ?? 0) > maxResponseBytes) return new ResponseTooLargeError(maxResponseBytes);
    return undefined;
  }

  /**
   * The head of a POST of one JSON-RPC message to the backend: only its configured headers and,
   * to a 2026-07-28 backend, the MCP request headers (spec "Request Metadata").
   */
  private head(
    body: string,
    session: HttpSessionInfo,
    method: string,
    name?: string,
    paramHeaders?: Record<string, string>,
    traceHeaders?: Record<string, string>,
  ): string {
    return this.format.head(Buffer.byteLength(body), sessionHeaders(session, method, name), paramHeaders, traceHeaders);
  }

  /** The same headers as an object, for the long-lived stream on `node:http`. */
  private headers(body: string, session: HttpSessionInfo, method: string): Record<string, string | number> {
    return { ...this.options.headers, ...POST_HEADERS, 'content-length': Buffer.byteLength(body), ...sessionHeaders(session, method) };
  }
}

/** The headers of every POST besides the configured ones and its length. */
const POST_HEADERS: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** The session's headers: its id and version (2025 eras), or the MCP request headers (2026-07-28). */
function sessionHeaders(session: HttpSessionInfo, method: string, name?: string): Record<string, string> | undefined {
  if (session.envelope)
    return session.sessionId === undefined ? requestHeaders(method, name) : { 'mcp-session-id': session.sessionId, ...requestHeaders(method, name) };
  if (session.sessionId === undefined) return session.protocolVersion === undefined ? undefined : { 'mcp-protocol-version': session.protocolVersion };
  if (session.protocolVersion === undefined) return { 'mcp-session-id': session.sessionId };
  return { 'mcp-session-id': session.sessionId, 'mcp-protocol-version': session.protocolVersion };
}

/** How a POST reads its answer's body, once its head is in. */
const enum Reading {
  Json,
  Stream,
  /** Refused by its head: the body is read past, unused. */
  Refused,
}

/** One POSTed request: what it sends, the exchange now carrying it, and its answer as read so far. */
export class Post {
  exchange: Exchange<Post> | undefined;
  /** Sent once more after a stale pooled socket. */
  resent = false;
  /** Torn down by its owner: nobody waits for it any more. */
  destroyed = false;
  /** A notification: nobody reads its answer or failure. */
  quiet = false;
  readonly latin1Head: boolean;
  status = 0;
  reading = Reading.Json;
  seen = 0;
  chunks: Buffer[] = [];
  reader: SseReader | undefined;
  decoder: StringDecoder | undefined;
  answered = false;

  constructor(
    readonly id: string,
    readonly body: string,
    readonly head: string,
    readonly session: HttpSessionInfo,
    readonly options: PostOptions,
  ) {
    this.latin1Head = RequestHeadFormat.latin1(head);
  }

  /** Tears the request down: its socket is not kept for a request nobody waits for. */
  destroy(): void {
    this.destroyed = true;
    this.exchange?.destroy();
  }
}

/** What a long-lived event stream tells its owner. */
export interface StreamEvents {
  /** One event's data, parsed (`UNREADABLE` when not JSON). */
  onMessage(message: unknown): void;
  /** The answer was not an event stream (a JSON error, say): status as sent. */
  onRefused(status: number): void;
  /** The request ended, however it ended (called on its error and on its close). */
  onEnd(): void;
}

/** The request went out on a pooled socket the server had already closed: it never arrived. */
class StaleSocketError extends Error {
  constructor() {
    super('stale keep-alive socket');
    this.name = 'StaleSocketError';
  }
}

function parseMessage(text: string): unknown {
  try {
    const message: unknown = JSON.parse(text);
    return message;
  } catch {
    return UNREADABLE;
  }
}

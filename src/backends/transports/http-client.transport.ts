import { Agent as HttpAgent, type ClientRequest, type IncomingMessage, request as httpRequest, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { urlToHttpOptions } from 'node:url';
import { RouterError } from '../../common/router-error';
import { ConnectionBrokeError, ConnectionLostError, ResponseTooLargeError, systemErrorCode } from '../domain/backend-failures';
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
 * Streamable HTTP on a pooled `node:http` client: it moves messages (one POST per request, its
 * answer back) and matches nothing; ids, deadlines and cancellation are the tracker's above it.
 * The SDK's client path (fetch, web streams, one AbortSignal per transport) costs ~530 µs of CPU
 * per call here against ~80 µs for a pooled request (BENCHMARKS.md item 1); calls are the router's
 * hot path, so they take this one.
 * - Answers may be JSON or an event stream (spec "Sending Messages to the Server"); each message of
 *   a stream is handed up until the tracker has the answer.
 * - The answer is capped like a stdio line, counted as it arrives: an oversized answer fails its
 *   own request and is never buffered whole.
 * - Redirects are refused: backend URLs come only from config, and following one would send the
 *   backend's configured credentials to another host.
 */
export class HttpClientTransport {
  private readonly agent: HttpAgent;
  private readonly send: typeof httpRequest;
  /** The backend's URL as request options, worked out once rather than from the URL on every request. */
  private readonly target: RequestOptions;

  constructor(
    private readonly options: HttpClientTransportOptions,
    private readonly replies: PostReplies,
  ) {
    const secure = options.url.protocol === 'https:';
    // Node's Agent shortens the idle time to the server's Keep-Alive hint, when it sends one.
    const agentOptions = { keepAlive: true, timeout: HTTP_IDLE_SOCKET_MS, scheduling: 'lifo' as const, maxSockets: options.maxSockets ?? HTTP_MAX_SOCKETS };
    this.agent = secure ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
    this.send = secure ? httpsRequest : httpRequest;
    this.target = urlToHttpOptions(options.url);
  }

  /**
   * POSTs request `id` (already serialized in `body`) on the pool; its answer and failures go to
   * `PostReplies` under that id. A reused keep-alive socket the server closed as the request went
   * out never delivered it (Node's docs): it is sent once more, on another socket.
   */
  post(id: string, body: string, session: HttpSessionInfo, options: PostOptions): Post {
    const post = new Post(id, body, session, options);
    this.start(post);
    return post;
  }

  /**
   * Fire and forget, with a short bound of its own: a notification (`notifications/cancelled`
   * after a call's deadline) whose answer nobody waits for.
   */
  notify(body: string, session: HttpSessionInfo, method: string): void {
    const req = this.open(session, body, method);
    req.setTimeout(CANCEL_TIMEOUT_MS);
    req.on('response', (res) => res.resume());
    req.on('timeout', () => req.destroy());
    req.on('error', () => undefined);
  }

  /**
   * A long-lived POST on a socket of its own (it stays open; the pool is for calls), read as an
   * event stream: each event is capped like an answer, the stream as a whole is not. Used for
   * `subscriptions/listen`.
   */
  stream(body: string, session: HttpSessionInfo, method: string, events: StreamEvents): ClientRequest {
    const req = this.open(session, body, method, undefined, undefined, false);
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
    this.agent.destroy();
  }

  private start(post: Post): void {
    const { id } = post;
    let responded = false;
    const req = this.open(post.session, post.body, post.options.method, post.options.name, post.options.paramHeaders, true, post.options.traceHeaders);
    post.req = req;
    // Only the request that is the POST's now speaks for it: not one given up on a stale socket.
    req.on('close', () => {
      if (post.req === req) this.replies.closed(id);
    });
    req.on('error', (err) => {
      // A request torn down on purpose (its deadline passed, its answer failed) is not resent.
      if (post.req !== req || post.destroyed) return;
      const failure = this.socketFailure(err, !responded && req.reusedSocket);
      if (failure instanceof StaleSocketError && !post.resent) {
        post.resent = true;
        return this.resend(post);
      }
      this.replies.failed(id, failure);
    });
    req.on('response', (res) => {
      responded = true;
      const status = res.statusCode ?? 0;
      const refusal = this.refusal(res, post.session, post.options.errorStatusAnswers);
      if (refusal) {
        res.resume();
        return this.replies.failed(id, refusal);
      }
      this.readAnswer(res, id, status);
    });
  }

  /** The same POST once more, from inside an event handler: a failure to open it fails its request. */
  private resend(post: Post): void {
    try {
      this.start(post);
    } catch (err) {
      this.replies.failed(post.id, err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** Reads a JSON or event-stream answer, capped, and hands its messages up. */
  private readAnswer(res: IncomingMessage, id: string, status: number): void {
    const { backend, maxResponseBytes } = this.options;
    const stream = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
    const reader = stream ? new SseReader() : undefined;
    const decoder = stream ? new StringDecoder('utf8') : undefined;
    const chunks: Buffer[] = [];
    let seen = 0;
    let answered = false;
    res.on('data', (chunk: Buffer) => {
      // Bytes are counted before any decoding: an oversized answer costs no string work.
      seen += chunk.length;
      if (seen > maxResponseBytes) return this.replies.failed(id, new ResponseTooLargeError(maxResponseBytes));
      if (!reader || !decoder) return void chunks.push(chunk);
      // After the answer the rest of the stream is drained, so the socket goes back to the pool.
      if (answered) return;
      for (const event of reader.push(decoder.write(chunk))) if ((answered = this.replies.answer(id, parseMessage(event), false, status))) return;
    });
    res.on('end', () => {
      if (!reader) {
        this.replies.answer(id, parseMessage(Buffer.concat(chunks, seen).toString('utf8')), true, status);
      } else this.replies.failed(id, new RouterError('backend_failed', `backend ${backend} ended its answer stream without a result`));
    });
    res.on('error', (err) => this.replies.failed(id, this.socketFailure(err, false)));
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
  private refusal(res: IncomingMessage, session: HttpSessionInfo, errorStatusAnswers: boolean): Error | undefined {
    const { backend, maxResponseBytes } = this.options;
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400)
      return new RouterError('backend_failed', `backend ${backend} answered a redirect (${status}); redirects are not followed`);
    // Spec "Session Management": 404 to a request with a session id means the session is gone.
    if (status === 404 && session.sessionId !== undefined) return new ConnectionLostError(`backend ${backend} no longer knows the session (HTTP 404)`);
    const answers = (status >= 200 && status < 300) || (errorStatusAnswers && status >= 400 && status < 500);
    if (!answers) return new RouterError('backend_failed', `backend ${backend} answered HTTP ${status}`);
    if (Number(res.headers['content-length'] ?? 0) > maxResponseBytes) return new ResponseTooLargeError(maxResponseBytes);
    return undefined;
  }

  /**
   * A POST of one JSON-RPC message to the backend, with only its configured headers and, to a
   * 2026-07-28 backend, the MCP request headers (spec "Request Metadata"). On the pool, unless
   * `pooled` is false (a stream that stays open).
   */
  private open(
    session: HttpSessionInfo,
    body: string,
    method: string,
    name?: string,
    paramHeaders?: Record<string, string>,
    pooled = true,
    traceHeaders?: Record<string, string>,
  ): ClientRequest {
    const req = this.send({
      ...this.target,
      method: 'POST',
      agent: pooled ? this.agent : false,
      headers: {
        ...this.options.headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'content-length': Buffer.byteLength(body),
        ...(session.sessionId !== undefined ? { 'mcp-session-id': session.sessionId } : {}),
        ...(session.protocolVersion !== undefined ? { 'mcp-protocol-version': session.protocolVersion } : {}),
        ...(session.envelope ? requestHeaders(method, name) : {}),
        ...paramHeaders,
        ...traceHeaders,
      },
    });
    req.end(body);
    return req;
  }
}

/** One POSTed request: what it sends, and the request now carrying it. */
export class Post {
  req: ClientRequest | undefined;
  /** Sent once more after a stale pooled socket. */
  resent = false;
  /** Torn down by its owner: nobody waits for it any more. */
  destroyed = false;

  constructor(
    readonly id: string,
    readonly body: string,
    readonly session: HttpSessionInfo,
    readonly options: PostOptions,
  ) {}

  /** Tears the request down: its socket is not kept for a request nobody waits for. */
  destroy(): void {
    this.destroyed = true;
    this.req?.destroy();
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

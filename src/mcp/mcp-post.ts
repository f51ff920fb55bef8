import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { contextOfRequest, REQUEST_ID_HEADER, requestContext, type RequestContext } from '../common/request-context';
import type { Principal } from '../common/principal';
import { errnoCode } from '../common/thrown';
import { DRAINING_ANSWER } from '../lifecycle/drain.hook';
import type { LifecycleService } from '../lifecycle/lifecycle.service';
import type { MetricsService } from '../metrics/metrics.service';
import { BodyBudget, reservationOf } from './domain/body-budget';
import { BODY_TOO_LARGE_BODY, bodyKindOf, INTERNAL_ERROR_BODY, LENGTH_MISMATCH_BODY, UNSUPPORTED_MEDIA_TYPE_BODY } from './domain/post-body';
import type { HttpAnswer } from './era-dialect';
import { EdgeError, edgeErrorAnswer } from './mcp.errors';
import { sendEvents } from './mcp.controller';
import type { Admission, McpRequestHead, McpService } from './mcp.service';

const MCP_PATH = /^\/mcp(\?|$)/;
/** The route label of `http_requests_total`, as Fastify names the route. */
const ROUTE = '/mcp';
/** The body budget frees up as bodies arrive; a client may retry soon. */
const BUSY_ANSWER: HttpAnswer = {
  status: 503,
  headers: { 'retry-after': '1' },
  body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Service Unavailable: too many request bodies are being received; retry the request"}}',
};
const JSON_TYPE = 'application/json; charset=utf-8';
/** The type Fastify gave an empty answer (a 202). */
const EMPTY_TYPE = 'text/plain; charset=utf-8';

/** What reading a body came to: its text, a refusal to answer, or nobody left to answer. */
type Body = string | HttpAnswer | null;

/** One POST while it is served: what each step hands the next. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** The request's context, entered again where its body's events call back. */
  context: RequestContext;
  requestId: string;
  startedAt: number;
  /** Ends the request's count in flight (the response's `close` calls it). */
  release: () => void;
  /** Bytes of the body budget this request holds. */
  reserved: number;
}

/** What POST /mcp needs from the rest of the router. */
export interface McpPostDeps {
  mcp: McpService;
  lifecycle: LifecycleService;
  metrics: MetricsService;
  bodyLimitBytes: number;
  budget: BodyBudget;
  newId?: () => string;
}

/**
 * POST /mcp, every call's way in, on Node's request and response below Fastify: Fastify's request
 * and reply objects, its hook runner, content-type parser and `reply.send` (a `writev` of head and
 * body) cost about a third of the router's CPU per call, and did nothing here that these few lines
 * do not (BENCHMARKS.md). In the order the Fastify hooks ran them, in one place:
 *
 * 1. the request's context (its correlation id, echoed as `x-request-id`; its `traceparent`), in
 *    which everything below runs;
 * 2. the count in flight for the drain (`LifecycleService`), released by the response's `close`,
 *    which comes exactly once however the request ends; while draining, DRAINING_ANSWER;
 * 3. admission from the head alone (`McpService.admit`: Host and Origin, then the credential), a
 *    refusal answered at once with `Connection: close`, before a byte of the body is read; then the
 *    body's reservation in the BodyBudget (503 past it), freed once the body is read or the
 *    request ends;
 * 4. the body as text (`bodyKindOf`; 415, and 413 past `bodyLimitBytes`), then
 *    `McpService.handlePost`;
 * 5. the answer in one `end` of head and body (one write), and `http_requests_total`.
 *
 * Every other request (GET and DELETE /mcp, health, metrics, 404s) goes to Fastify.
 */
export class McpPost {
  private readonly logger = new Logger('Http');
  /** Nest's logger name for an error nobody mapped, as its exception filter logs it. */
  private readonly unhandled = new Logger('ExceptionsHandler');
  private readonly newId: () => string;

  constructor(private readonly deps: McpPostDeps) {
    this.newId = deps.newId ?? randomUUID;
  }

  /** True for the requests this path answers: POST /mcp, with or without a query. */
  static takes(req: IncomingMessage): boolean {
    return req.method === 'POST' && MCP_PATH.test(req.url ?? '');
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const startedAt = performance.now();
    const context = contextOfRequest(req.headers, this.newId);
    requestContext.run(context, () => this.serve(req, res, context, startedAt));
  }

  /**
   * One POST from its head to its answer. Not async: each step goes on from the last one's callback
   * (the admission, when it is not decided at once, and the answer are the only promises), since
   * with the request context's async hooks on, every promise and `await` costs the call its hooks.
   */
  private serve(req: IncomingMessage, res: ServerResponse, context: RequestContext, startedAt: number): void {
    const { requestId } = context;
    const release = this.deps.lifecycle.tryEnter();
    if (release === undefined) {
      this.logger.debug({ msg: 'request refused: draining' });
      return this.send(res, requestId, startedAt, DRAINING_ANSWER);
    }
    const exchange: Exchange = { req, res, context, requestId, startedAt, release, reserved: 0 };
    // `close` comes exactly once, however the request ends.
    res.on('close', () => {
      release();
      this.freeBody(exchange);
    });
    try {
      const head = { url: req.url ?? ROUTE, headers: req.headers, rawHeaders: req.rawHeaders };
      const admission = this.deps.mcp.admit(head);
      if (admission instanceof Promise) {
        admission.then(
          (admitted) => this.admitted(exchange, head, admitted),
          (err: unknown) => this.failed(exchange, err),
        );
      } else this.admitted(exchange, head, admission);
    } catch (err) {
      this.failed(exchange, err);
    }
  }

  /** Past admission: the body's reservation, then the body. */
  private admitted(exchange: Exchange, head: McpRequestHead, admission: Admission): void {
    const { req, res, requestId, startedAt } = exchange;
    try {
      if (!admission.ok) return this.send(res, requestId, startedAt, admission.answer, true);
      const { headers } = req;
      const bytes = reservationOf(headers['content-length'], headers['transfer-encoding'], this.deps.bodyLimitBytes);
      if (!this.deps.budget.tryReserve(bytes)) {
        this.logger.warn({ msg: 'request refused: body budget full', heldBytes: this.deps.budget.heldBytes, maxBytes: this.deps.budget.maxBytes });
        return this.send(res, requestId, startedAt, BUSY_ANSWER, true);
      }
      exchange.reserved = bytes;
      this.readBody(req, exchange.context, (body) => this.bodyRead(exchange, head, admission.principal, body));
    } catch (err) {
      this.failed(exchange, err);
    }
  }

  /** The body has arrived (or will not): the answer to it. */
  private bodyRead(exchange: Exchange, head: McpRequestHead, principal: Principal, body: Body): void {
    const { res, requestId, startedAt } = exchange;
    try {
      this.freeBody(exchange);
      if (body === null) return this.clientGone();
      if (typeof body !== 'string') return this.send(res, requestId, startedAt, body, body.status === 413);
      this.deps.mcp.handlePost({ ...head, body, principal }).then(
        (answer) => this.answered(exchange, answer),
        (err: unknown) => this.failed(exchange, err),
      );
    } catch (err) {
      this.failed(exchange, err);
    }
  }

  private answered(exchange: Exchange, answer: HttpAnswer): void {
    const { res, requestId, startedAt } = exchange;
    try {
      if (answer.events === undefined) return this.send(res, requestId, startedAt, answer);
      res.once('finish', () => this.observe(res.statusCode, startedAt));
      sendEvents(res, answer.events, exchange.release);
    } catch (err) {
      this.failed(exchange, err);
    }
  }

  /** A failure on the way: an EdgeError is its own answer; anything else is a 500, as Nest's filter answered it. */
  private failed(exchange: Exchange, err: unknown): void {
    const { res, requestId, startedAt } = exchange;
    if (err instanceof EdgeError) return this.send(res, requestId, startedAt, edgeErrorAnswer(err));
    this.unhandled.error(err);
    if (!res.headersSent) this.send(res, requestId, startedAt, { status: 500, body: INTERNAL_ERROR_BODY });
  }

  private freeBody(exchange: Exchange): void {
    this.deps.budget.release(exchange.reserved);
    exchange.reserved = 0;
  }

  /**
   * Hands `done` the body as text once it has all arrived; a refusal when its type is not one the
   * endpoint reads or it is too large; null when the client went away first (nobody is left to
   * answer). A callback rather than a promise: see `serve`. The request's stream events come
   * outside the request's context, so `done` is called back inside it (`context`).
   */
  private readBody(req: IncomingMessage, context: RequestContext, done: (body: Body) => void): void {
    const { headers } = req;
    const kind = bodyKindOf(headers['content-type'], headers['content-length'], headers['transfer-encoding']);
    if (kind === 'unsupported') return done({ status: 415, body: UNSUPPORTED_MEDIA_TYPE_BODY });
    if (kind === 'empty') return done('');
    const limit = this.deps.bodyLimitBytes;
    const announced = Number(headers['content-length']);
    if (announced > limit) return done({ status: 413, body: BODY_TOO_LARGE_BODY });
    if (req.destroyed) return done(null);
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (body: Body) => {
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
      requestContext.run(context, done, body);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) return finish({ status: 413, body: BODY_TOO_LARGE_BODY });
      chunks.push(chunk);
    };
    const onEnd = () => {
      if (!Number.isNaN(announced) && received !== announced) return finish({ status: 400, body: LENGTH_MISMATCH_BODY });
      finish(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, received).toString('utf8'));
    };
    const onError = (err: Error) => {
      if (errnoCode(err) === 'ECONNRESET' && err.message === 'aborted') return finish(null);
      finish({ status: 400, body: JSON.stringify({ statusCode: 400, message: err.message }) });
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  }

  /**
   * A client that goes away while its body is still arriving is no fault of the router's, and
   * there is nobody left to answer: `debug`, not an error line for every dropped connection.
   */
  private clientGone(): void {
    this.logger.debug({ msg: 'client went away before its request was read' });
  }

  /**
   * The whole answer in one `end`: the head and a string body go out in one write, with their
   * length (no chunked encoding). `close`: the connection ends after it (a refused request's unread
   * body is not read to keep the connection alive).
   */
  private send(res: ServerResponse, requestId: string, startedAt: number, answer: HttpAnswer, close = false): void {
    const { status, body } = answer;
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    const head: Record<string, string | number> = { [REQUEST_ID_HEADER]: requestId };
    if (answer.headers !== undefined) for (const name in answer.headers) head[name] = answer.headers[name];
    if (close) head.connection = 'close';
    head['content-type'] = body === undefined ? EMPTY_TYPE : JSON_TYPE;
    head['content-length'] = Buffer.byteLength(text);
    res.writeHead(status, head);
    res.end(text);
    this.observe(status, startedAt);
  }

  private observe(status: number, startedAt: number): void {
    this.deps.metrics.observeHttpRequest('POST', ROUTE, status, (performance.now() - startedAt) / 1000);
  }
}

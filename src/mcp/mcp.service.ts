import { Inject, Injectable } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { AuthService } from '../auth/auth.service';
import type { AuthResult } from '../auth/auth.types';
import { refusalBody } from '../auth/domain/bearer';
import type { Principal } from '../common/principal';
import { currentRequestId, currentTraceparent, noteProtocolVersion } from '../common/request-context';
import { EdgeError, edgeErrorAnswer } from './mcp.errors';
import { HTTP_CONFIG } from '../config/config.tokens';
import type { HttpConfig } from '../config/config.types';
import type { GridCounter } from '../metrics/grid-counter';
import { MetricsService } from '../metrics/metrics.service';
import { errorMessage, parseIncoming, type RequestId } from './domain/jsonrpc';
import { notificationVersionProblem, selectEra, type EraRefusal } from './domain/request-era';
import { PROTOCOL_VERSIONS } from './domain/protocol-versions';
import { guardRequest } from './domain/request-guard';
import { claimedVersion, METHOD_LABELS, methodLabelIndex, VERSION_LABELS, versionLabelIndex } from './domain/request-labels';
import type { EraDialect, EraRequest, HttpAnswer } from './era-dialect';
import { LegacyEra } from './legacy-era';
import { ModernEra } from './modern-era';
import { answerAttributes, requestSpan } from '../tracing/domain/spans';
import { TRACING, type SpanOutcome, type Tracing } from '../tracing/tracing';
import { FIND_TOOL, INVOKE_READ_TOOL, INVOKE_READ_TOOL_BATCH, INVOKE_TOOL } from './published-tools';

/** The tools a request span may be named after: the router's own, a closed set. */
const SPAN_TOOL_NAMES: ReadonlySet<string> = new Set([FIND_TOOL, INVOKE_READ_TOOL, INVOKE_READ_TOOL_BATCH, INVOKE_TOOL]);

/** What a request span records of the answer: a JSON-RPC error's code, an HTTP status other than 200. */
const ANSWER_OUTCOME: SpanOutcome<HttpAnswer> = {
  result: (span, answer) => {
    const attributes = answerAttributes(answer.status, answer.body);
    if (attributes === undefined) return;
    span.setAttributes(attributes);
    if (typeof attributes['error.type'] === 'string') span.fail(attributes['error.type']);
  },
};

/** What admission reads of an HTTP request: its head, never its body. */
export interface McpRequestHead {
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** Node's `rawHeaders`, where a repeated header is still visible. */
  rawHeaders?: readonly string[];
}

/** The parts of an HTTP request the endpoint reads; `principal` once admission has run. */
export interface McpHttpRequest extends McpRequestHead {
  body: string;
  principal?: Principal;
}

/** Who may go on, or the answer that ends the request. */
export type Admission = { ok: true; principal: Principal } | { ok: false; answer: HttpAnswer };

/**
 * Stateless MCP over Streamable HTTP, both protocol eras on one endpoint (spec 2026-07-28,
 * "Versioning": a dual-era server): each POST carries one JSON-RPC message and gets one
 * `application/json` answer. `selectEra` reads the era of each request from its headers and
 * `_meta`; the era's dialect answers it (docs/protocol-eras.md). These few methods are handled
 * here rather than through the SDK's server transport, which served several times fewer requests
 * per second on the same machine.
 */
@Injectable()
export class McpService {
  /** `mcp_requests_total`: each admitted message by the version it claims and its method (bounded labels). */
  private readonly requests: GridCounter<'version', 'method'>;

  constructor(
    private readonly auth: AuthService,
    private readonly audit: AuditService,
    private readonly legacy: LegacyEra,
    private readonly modern: ModernEra,
    @Inject(HTTP_CONFIG) private readonly http: HttpConfig,
    metrics: MetricsService,
    @Inject(TRACING) private readonly tracing: Tracing,
  ) {
    this.requests = metrics.countMcpRequests(VERSION_LABELS, METHOD_LABELS);
  }

  /**
   * Checks the edge (Host, Origin), then who is calling (architecture §10): from the request's head
   * alone, so POST /mcp (mcp-post.ts) can refuse before a byte of the body is read. Decided at once
   * unless a credential must be verified asynchronously (a JWT): a promise only then.
   */
  admit(head: McpRequestHead): Admission | Promise<Admission> {
    const { host, origin } = head.headers;
    try {
      guardRequest(
        { host: single(host), origin: single(origin) },
        { listenHost: this.http.host, allowedHosts: this.http.allowedHosts, allowedOrigins: this.http.allowedOrigins },
      );
    } catch (err) {
      if (err instanceof EdgeError) return { ok: false, answer: edgeErrorAnswer(err) };
      throw err;
    }
    const caller = this.auth.authenticate({ headers: head.headers, rawHeaders: head.rawHeaders, url: head.url });
    return caller instanceof Promise ? caller.then((result) => this.admission(result)) : this.admission(caller);
  }

  /** Who may go on; a refused credential is audited and answered with its challenge. */
  private admission(caller: AuthResult): Admission {
    if (caller.ok) return caller;
    this.audit.recordAuthFailure({ reason: caller.reason, httpStatus: caller.status, correlationId: currentRequestId(), traceparent: currentTraceparent() });
    return { ok: false, answer: { status: caller.status, headers: { 'www-authenticate': caller.wwwAuthenticate }, body: refusalBody(caller) } };
  }

  /**
   * Answers one POSTed body; admits the caller first unless POST /mcp already did. Not async (a
   * promise and its turns less on every call); whatever goes wrong comes back as a rejection.
   */
  handlePost(request: McpHttpRequest): Promise<HttpAnswer> {
    try {
      if (request.principal !== undefined) return this.answer(request, request.principal);
      const admission = this.admit(request);
      if (admission instanceof Promise) return admission.then((admitted) => (admitted.ok ? this.answer(request, admitted.principal) : admitted.answer));
      return admission.ok ? this.answer(request, admission.principal) : Promise.resolve(admission.answer);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private answer(request: McpHttpRequest, principal: Principal): Promise<HttpAnswer> {
    const incoming = parseIncoming(request.body);
    switch (incoming.kind) {
      case 'invalid':
        return Promise.resolve({ status: 400, body: errorMessage(incoming.id, incoming.code, incoming.message) });
      case 'notification': {
        this.requests.inc(versionLabelIndex(claimedVersion(request.headers, incoming.method, undefined)), methodLabelIndex(incoming.method));
        const problem = notificationVersionProblem(request.headers);
        return Promise.resolve(problem === undefined ? { status: 202 } : refused(null, problem));
      }
      case 'response':
        return Promise.resolve({ status: 202 });
      case 'request': {
        const { id, method, params } = incoming;
        const claimed = claimedVersion(request.headers, method, params);
        // Counted before the era checks, so refusals show under the version they claimed.
        this.requests.inc(versionLabelIndex(claimed), methodLabelIndex(method));
        const era = selectEra(request.headers, method, params);
        if (era.era === 'refused') return Promise.resolve(refused(id, era));
        // Past selectEra a claimed version is a listed one. Only a tool call's work reads it (its
        // audit line), so other methods skip the context lookup.
        if (method === 'tools/call' && typeof claimed === 'string') noteProtocolVersion(claimed);
        const dialect = era.era === 'modern' ? this.modern : this.legacy;
        const eraRequest = { id, method, params, principal };
        if (!this.tracing.enabled) return dialect.answer(eraRequest);
        const version = typeof claimed === 'string' && PROTOCOL_VERSIONS.includes(claimed) ? claimed : undefined;
        return this.traced(dialect, eraRequest, version, request.headers);
      }
    }
  }

  /**
   * Answers inside the request's server span, which continues the caller's trace (its
   * `params._meta` context, else its `traceparent` header: architecture §8.1).
   */
  private traced(dialect: EraDialect, request: EraRequest, protocolVersion: string | undefined, headers: McpRequestHead['headers']): Promise<HttpAnswer> {
    const { id, method, params } = request;
    const start = () => requestSpan({ method, id, protocolVersion, toolName: params.name, meta: params._meta, headers, published: SPAN_TOOL_NAMES });
    return this.tracing.inSpan(start, () => dialect.answer(request), ANSWER_OUTCOME);
  }
}

/** An era refusal: HTTP 400 with the JSON-RPC error (spec 2026-07-28, Streamable HTTP "Server Validation"). */
function refused(id: RequestId | null, refusal: EraRefusal): HttpAnswer {
  return { status: 400, body: errorMessage(id, refusal.code, refusal.message, refusal.data) };
}

function single(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}

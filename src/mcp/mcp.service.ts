import { Inject, Injectable, Logger } from '@nestjs/common';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { BatchService } from '../batch/batch.service';
import { FindToolService } from '../batch/find-tool.service';
import { AuditService } from '../audit/audit.service';
import { AuthService } from '../auth/auth.service';
import { refusalBody } from '../auth/domain/bearer';
import type { Principal } from '../common/principal';
import { currentRequestId, currentTraceparent } from '../common/request-context';
import { EdgeError, edgeErrorAnswer } from './mcp.errors';
import { HTTP_CONFIG, WRITES_CONFIG } from '../config/config.tokens';
import type { HttpConfig, WritesConfig } from '../config/config.types';
import { errorMessage, parseIncoming, resultMessage, resultMessageJson, type RequestId } from './domain/jsonrpc';
import { negotiateVersion, PROTOCOL_VERSION_HEADER, versionHeaderProblem } from './domain/protocol-versions';
import { guardRequest } from './domain/request-guard';
import { findToolResult, refusal, refusalResult } from './domain/tool-result';
import { checkFindToolInput } from './domain/find-tool-input';
import { FIND_TOOL, INVOKE_READ_TOOL, INVOKE_READ_TOOL_BATCH, INVOKE_TOOL, INVOKE_TOOL_DEFINITION, PUBLISHED_TOOLS } from './published-tools';

/**
 * What the controller sends back: an HTTP status, headers and, unless 202, a JSON body: a value
 * to serialize, or a string that is JSON text already (a `tools/call` answer, serialized once;
 * Fastify sends a string as is).
 */
export interface HttpAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

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

export const SERVER_INFO = { name: 'centralmcp-router', version: '0.1.0' } as const;

const INSTRUCTIONS =
  'This router fronts many MCP servers. Use find_tool to search their tools, then invoke_read_tool ' +
  'with the exact name (and server) to call a read-only one, or invoke_read_tool_batch for up to 25 ' +
  'read-only calls in one round trip.';
const WRITE_INSTRUCTIONS =
  ' Tools that change something go through invoke_tool; a destructive one first answers ' +
  'confirmation_required with a `confirmation` to pass back as `confirm` with the same call.';

/**
 * Stateless MCP over Streamable HTTP (spec 2025-06-18 "Transports"): each POST carries one
 * JSON-RPC message and gets one `application/json` answer. Handling these few methods here rather
 * than through the SDK's server transport measured several times the requests/s (issue #2).
 */
@Injectable()
export class McpService {
  private readonly logger = new Logger(McpService.name);
  /** What `tools/list` answers: the read tools, and `invoke_tool` when writes are enabled (issue 14). */
  private readonly published: readonly { name: string }[];
  private readonly instructions: string;

  constructor(
    private readonly batch: BatchService,
    private readonly finder: FindToolService,
    private readonly auth: AuthService,
    private readonly audit: AuditService,
    @Inject(HTTP_CONFIG) private readonly http: HttpConfig,
    @Inject(WRITES_CONFIG) private readonly writes: WritesConfig,
  ) {
    this.published = writes.enabled ? [...PUBLISHED_TOOLS, INVOKE_TOOL_DEFINITION] : PUBLISHED_TOOLS;
    this.instructions = writes.enabled ? INSTRUCTIONS + WRITE_INSTRUCTIONS : INSTRUCTIONS;
  }

  /**
   * Checks the edge (Host, Origin), then who is calling (architecture §10): from the request's head
   * alone, so the admission hook can refuse before a byte of the body is read.
   */
  async admit(head: McpRequestHead): Promise<Admission> {
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
    const caller = await this.auth.authenticate({ headers: head.headers, rawHeaders: head.rawHeaders, url: head.url });
    if (caller.ok) return caller;
    this.audit.recordAuthFailure({ reason: caller.reason, httpStatus: caller.status, correlationId: currentRequestId(), traceparent: currentTraceparent() });
    return { ok: false, answer: { status: caller.status, headers: { 'www-authenticate': caller.wwwAuthenticate }, body: refusalBody(caller) } };
  }

  /** Answers one POSTed body; admits the caller first unless the admission hook already did. */
  async handlePost(request: McpHttpRequest): Promise<HttpAnswer> {
    let principal = request.principal;
    if (principal === undefined) {
      const admission = await this.admit(request);
      if (!admission.ok) return admission.answer;
      principal = admission.principal;
    }
    const incoming = parseIncoming(request.body);
    if (incoming.kind === 'request' || incoming.kind === 'notification') {
      const problem = incoming.method === 'initialize' ? undefined : versionHeaderProblem(request.headers[PROTOCOL_VERSION_HEADER]);
      if (problem !== undefined) return { status: 400, body: errorMessage(incoming.kind === 'request' ? incoming.id : null, -32000, problem) };
    }
    switch (incoming.kind) {
      case 'invalid':
        return { status: 400, body: errorMessage(incoming.id, incoming.code, incoming.message) };
      case 'notification':
      case 'response':
        return { status: 202 };
      case 'request':
        return { status: 200, body: await this.answer(incoming.id, incoming.method, incoming.params, principal) };
    }
  }

  private async answer(id: RequestId, method: string, params: Record<string, unknown>, principal: Principal): Promise<unknown> {
    switch (method) {
      case 'initialize':
        return resultMessage(id, {
          protocolVersion: negotiateVersion(params.protocolVersion),
          capabilities: { tools: { listChanged: false } },
          serverInfo: SERVER_INFO,
          instructions: this.instructions,
        });
      case 'ping':
        return resultMessage(id, {});
      case 'tools/list':
        return resultMessage(id, { tools: this.published });
      case 'tools/call':
        return this.callTool(id, params, principal);
      default:
        return errorMessage(id, ErrorCode.MethodNotFound, 'Method not found');
    }
  }

  private async callTool(id: RequestId, params: Record<string, unknown>, principal: Principal): Promise<unknown> {
    const { name } = params;
    const args = params.arguments ?? {};
    if (typeof name !== 'string') return errorMessage(id, ErrorCode.InvalidParams, 'Invalid params: `name` must be a string');
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      return errorMessage(id, ErrorCode.InvalidParams, 'Invalid params: `arguments` must be an object');
    }
    return resultMessageJson(id, await this.runTool(name, args as Record<string, unknown>, principal));
  }

  /**
   * The tool's whole result as JSON text. `isError` is true only when nothing was dispatched (a
   * refusal) or the single call failed; a dispatched batch is the tool working, whatever its
   * entries did (architecture §5).
   */
  private async runTool(name: string, args: Record<string, unknown>, principal: Principal): Promise<string> {
    switch (name) {
      case FIND_TOOL: {
        const input = checkFindToolInput(args);
        if (!input.ok) return refusalResult(refusal('invalid_arguments', input.message));
        const outcome = await this.finder.find(input.query, principal);
        return outcome.ok ? findToolResult(outcome.answer) : refusalResult(refusal('invalid_arguments', outcome.message));
      }
      case INVOKE_READ_TOOL:
        return (await this.batch.read(args, principal)).wire;
      case INVOKE_READ_TOOL_BATCH: {
        const outcome = await this.batch.readBatch(args, principal);
        if ('rejected' in outcome) return refusalResult(refusal(outcome.rejected.code, outcome.rejected.message));
        return outcome.wire;
      }
      case INVOKE_TOOL:
        if (this.writes.enabled) return (await this.batch.write(args, principal)).wire;
        return this.unknownTool();
      default:
        return this.unknownTool();
    }
  }

  /** As the SDK's own server does: a tool error the client shows to the model (architecture §1). */
  private unknownTool(): string {
    return refusalResult(refusal('unknown_tool', `This router publishes ${this.published.map((t) => t.name).join(', ')} only`));
  }
}

function single(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header[0] : header;
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { ErrorCode, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { BatchService } from '../batch/batch.service';
import type { ReadAnswer } from '../batch/batch.types';
import { FindToolService } from '../batch/find-tool.service';
import { HTTP_CONFIG } from '../config/config.tokens';
import type { HttpConfig } from '../config/config.types';
import { errorMessage, parseIncoming, resultMessage, type RequestId } from './domain/jsonrpc';
import { guardRequest } from './domain/request-guard';
import { toolError, toolResult, type ToolCallResult } from './domain/tool-result';
import { checkFindToolInput } from './domain/find-tool-input';
import { FIND_TOOL, INVOKE_READ_TOOL, INVOKE_READ_TOOL_BATCH, PUBLISHED_TOOLS } from './published-tools';

/** What the controller sends back: an HTTP status and, unless 202, a JSON body. */
export interface HttpAnswer {
  status: number;
  body?: unknown;
}

export const SERVER_INFO = { name: 'centralmcp-router', version: '0.1.0' } as const;

const INSTRUCTIONS =
  'This router fronts many MCP servers. Use find_tool to search their tools, then invoke_read_tool ' +
  'with the exact name (and server) to call a read-only one, or invoke_read_tool_batch for up to 25 ' +
  'read-only calls in one round trip.';

/**
 * Stateless MCP over Streamable HTTP (spec 2025-06-18 "Transports"): each POST carries one
 * JSON-RPC message and gets one `application/json` answer. Handling these few methods here rather
 * than through the SDK's server transport measured several times the requests/s (issue #2).
 */
@Injectable()
export class McpService {
  private readonly logger = new Logger(McpService.name);

  constructor(
    private readonly batch: BatchService,
    private readonly finder: FindToolService,
    @Inject(HTTP_CONFIG) private readonly http: HttpConfig,
  ) {}

  /** Checks the edge (throws EdgeError), then answers one POSTed body. */
  async handlePost(body: string, headers: { host?: string; origin?: string }): Promise<HttpAnswer> {
    guardRequest(headers, { listenHost: this.http.host, allowedHosts: this.http.allowedHosts, allowedOrigins: this.http.allowedOrigins });
    const incoming = parseIncoming(body);
    switch (incoming.kind) {
      case 'invalid':
        return { status: 400, body: errorMessage(incoming.id, incoming.code, incoming.message) };
      case 'notification':
      case 'response':
        return { status: 202 };
      case 'request':
        return { status: 200, body: await this.answer(incoming.id, incoming.method, incoming.params) };
    }
  }

  private async answer(id: RequestId, method: string, params: Record<string, unknown>): Promise<unknown> {
    switch (method) {
      case 'initialize':
        return resultMessage(id, {
          protocolVersion: negotiate(params.protocolVersion),
          capabilities: { tools: { listChanged: false } },
          serverInfo: SERVER_INFO,
          instructions: INSTRUCTIONS,
        });
      case 'ping':
        return resultMessage(id, {});
      case 'tools/list':
        return resultMessage(id, { tools: PUBLISHED_TOOLS });
      case 'tools/call':
        return this.callTool(id, params);
      default:
        return errorMessage(id, ErrorCode.MethodNotFound, 'Method not found');
    }
  }

  private async callTool(id: RequestId, params: Record<string, unknown>): Promise<unknown> {
    const { name } = params;
    const args = params.arguments ?? {};
    if (typeof name !== 'string') return errorMessage(id, ErrorCode.InvalidParams, 'Invalid params: `name` must be a string');
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      return errorMessage(id, ErrorCode.InvalidParams, 'Invalid params: `arguments` must be an object');
    }
    return resultMessage(id, await this.runTool(name, args as Record<string, unknown>));
  }

  private async runTool(name: string, args: Record<string, unknown>): Promise<ToolCallResult> {
    switch (name) {
      case FIND_TOOL: {
        const input = checkFindToolInput(args);
        if (!input.ok) return toolError({ ok: false, error: { code: 'invalid_arguments', message: input.message } });
        const hits = this.finder.find(input.query);
        return toolResult({ hits }, false);
      }
      case INVOKE_READ_TOOL: {
        const answer = await this.batch.read(args, singleEnvelope);
        return toolResult(singleEnvelope(answer), answer.status !== 'ok');
      }
      case INVOKE_READ_TOOL_BATCH: {
        const outcome = await this.batch.readBatch(args);
        if ('rejected' in outcome) return toolError({ ok: false, error: outcome.rejected });
        return toolResult({ ...outcome.response }, !outcome.response.ok);
      }
      default:
        // As the SDK's own server does: a tool error the client shows to the model (DESIGN §1).
        return toolError({ ok: false, error: { code: 'unknown_tool', message: `This router publishes ${PUBLISHED_TOOLS.map((t) => t.name).join(', ')} only` } });
    }
  }
}

/** The single call's answer: the batch item's fields without index and id, plus `ok` (DESIGN §1). */
function singleEnvelope(answer: ReadAnswer): Record<string, unknown> {
  return { ok: answer.status === 'ok', ...answer };
}

function negotiate(requested: unknown): string {
  return typeof requested === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

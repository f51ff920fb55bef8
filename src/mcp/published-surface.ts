import { Inject, Injectable } from '@nestjs/common';
import { BatchService } from '../batch/batch.service';
import { FindToolService } from '../discovery/find-tool.service';
import { WriteService } from '../batch/write.service';
import { isJsonObject, type JsonObject } from '../common/json-object';
import type { Principal } from '../common/principal';
import { WRITES_CONFIG } from '../config/config.tokens';
import type { WritesConfig } from '../config/config.types';
import { checkFindToolInput } from './domain/find-tool-input';
import type { RequestParams } from './domain/jsonrpc';
import { findToolResult, refusal, refusalResult } from './domain/tool-result';
import { findToolSpan, ATTR, TOOL_ERROR } from '../tracing/domain/spans';
import { TRACING, type Tracing } from '../tracing/tracing';
import { FIND_TOOL, INVOKE_READ_TOOL, INVOKE_READ_TOOL_BATCH, INVOKE_TOOL, INVOKE_TOOL_DEFINITION, PUBLISHED_TOOLS } from './published-tools';

export const SERVER_INFO = { name: 'centralmcp-router', version: '0.1.0' } as const;

const INSTRUCTIONS =
  'This router fronts many MCP servers. Use find_tool to search their tools, then invoke_read_tool ' +
  'with the exact name (and server) to call a read-only one, or invoke_read_tool_batch for up to 25 ' +
  'read-only calls in one round trip.';
const WRITE_INSTRUCTIONS =
  ' Tools that change something go through invoke_tool; a destructive one first answers ' +
  'confirmation_required with a `confirmation` to pass back as `confirm` with the same call.';

/** A `tools/call` outcome: the tool's result as JSON text, or params the method cannot take. */
export type ToolCallOutcome = { ok: true; resultJson: string } | { ok: false; message: string };

/**
 * What the router publishes, whatever the protocol era of the client: its tools, in one fixed
 * order (find_tool first, as a model should use them; spec 2026-07-28 "Tools": deterministic
 * order), its instructions, and the running of a published tool. Static for the life of the
 * process: only a restart with another `writes` setting changes it.
 */
@Injectable()
export class PublishedSurface {
  /**
   * What `tools/list` answers: the read tools, and `invoke_tool` only when the operator enabled
   * `writes`, so a router that cannot write never offers a model a tool that changes something.
   */
  readonly tools: readonly { name: string }[];
  readonly instructions: string;

  constructor(
    private readonly batch: BatchService,
    private readonly finder: FindToolService,
    private readonly writer: WriteService,
    @Inject(WRITES_CONFIG) private readonly writes: WritesConfig,
    @Inject(TRACING) private readonly tracing: Tracing,
  ) {
    this.tools = Object.freeze(writes.enabled ? [...PUBLISHED_TOOLS, INVOKE_TOOL_DEFINITION] : [...PUBLISHED_TOOLS]);
    this.instructions = writes.enabled ? INSTRUCTIONS + WRITE_INSTRUCTIONS : INSTRUCTIONS;
  }

  /** Checks `tools/call` params the way the SDK's schema would, then runs the tool. */
  async call(params: RequestParams, principal: Principal): Promise<ToolCallOutcome> {
    const { name } = params;
    const args = params.arguments ?? {};
    if (typeof name !== 'string') return { ok: false, message: 'Invalid params: `name` must be a string' };
    if (!isJsonObject(args)) return { ok: false, message: 'Invalid params: `arguments` must be an object' };
    return { ok: true, resultJson: await this.run(name, args, principal) };
  }

  /**
   * The tool's whole result as JSON text. `isError` is true only when nothing was dispatched (a
   * refusal) or the single call failed; a dispatched batch is the tool working, whatever its
   * entries did (architecture §5).
   */
  private async run(name: string, args: JsonObject, principal: Principal): Promise<string> {
    switch (name) {
      case FIND_TOOL: {
        const input = checkFindToolInput(args);
        if (!input.ok) return this.toolError(refusalResult(refusal('invalid_arguments', input.message)));
        const query = input.query;
        const outcome = await this.tracing.inSpan(
          () => findToolSpan(query.topK),
          async (span) => {
            const found = await this.finder.find(query, principal);
            span.setAttributes({ [ATTR.hits]: found.ok ? found.answer.hits.length : 0 });
            return found;
          },
        );
        return outcome.ok ? findToolResult(outcome.answer) : this.toolError(refusalResult(refusal('invalid_arguments', outcome.message)));
      }
      case INVOKE_READ_TOOL: {
        const single = await this.batch.read(args, principal);
        return single.answer.status === 'ok' ? single.wire : this.toolError(single.wire);
      }
      case INVOKE_READ_TOOL_BATCH: {
        const outcome = await this.batch.readBatch(args, principal);
        return outcome.kind === 'rejected' ? this.toolError(refusalResult(refusal(outcome.code, outcome.message))) : outcome.batch.wire;
      }
      case INVOKE_TOOL: {
        if (!this.writes.enabled) return this.unknownTool();
        const single = await this.writer.write(args, principal);
        // A confirmation request is a question, not a failure (architecture §13).
        return single.answer.status === 'ok' || single.answer.status === 'confirmation_required' ? single.wire : this.toolError(single.wire);
      }
      default:
        return this.unknownTool();
    }
  }

  /** As the SDK's own server does: a tool error the client shows to the model (architecture §1). */
  private unknownTool(): string {
    return this.toolError(refusalResult(refusal('unknown_tool', `This router publishes ${this.tools.map((t) => t.name).join(', ')} only`)));
  }

  /** A result with `isError: true`: the request's span says so (`error.type` `tool_error`, MCP semantic conventions). */
  private toolError(resultJson: string): string {
    if (this.tracing.enabled) this.tracing.current().fail(TOOL_ERROR);
    return resultJson;
  }
}

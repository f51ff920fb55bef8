import { Inject, Injectable, Logger } from '@nestjs/common';
import { BackendsService } from '../backends/backends.service';
import type { Entrypoint } from '../common/call-status';
import { RouterError, statusOf } from '../common/router-error';
import { BUDGET_CONFIG } from '../config/config.tokens';
import type { BudgetConfig } from '../config/config.types';
import { CursorService, type CursorBinding } from '../cursor/cursor.service';
import { boundResult, dedupeResult, type Budget, type Position, type ToolResultLike } from '../cursor/domain/bounding';
import { argumentsDigest, canonicalArguments } from '../cursor/domain/canonical';
import { GateService } from '../gate/gate.service';
import { RegistryService } from '../registry/registry.service';
import type { Bounds, Envelope, ReadAnswer } from './batch.types';
import { checkReadCall, type ReadCall } from './domain/read-call';

/** DESIGN §5: an error message is at most 500 characters. */
export const MAX_ERROR_CHARS = 500;
/** Room held for a cursor while a page is sized; the real cursor is then measured. */
const CURSOR_RESERVE_CHARS = 400;

/**
 * The one dispatch seam (DESIGN §1): resolve → read-only gate → cursor check → dispatch with
 * timeout → bound the response. The single call and every batch entry come through `read`;
 * nothing else calls a backend.
 */
@Injectable()
export class BatchService {
  private readonly logger = new Logger(BatchService.name);

  constructor(
    private readonly registry: RegistryService,
    private readonly gate: GateService,
    private readonly backends: BackendsService,
    private readonly cursors: CursorService,
    @Inject(BUDGET_CONFIG) private readonly budgets: BudgetConfig,
  ) {}

  /** The budget of one `invoke_read_tool` answer. */
  get singleBudget(): Budget {
    return { maxBytes: this.budgets.responseMaxBytes, maxItems: this.budgets.responseMaxItems };
  }

  /**
   * Answers one read call; never throws for anything the caller or a backend did. `raw` is the
   * call as received (validated here, so both entrypoints share the bounds).
   */
  async read(raw: unknown, entrypoint: Entrypoint, budget: Budget, envelope: Envelope): Promise<ReadAnswer> {
    const checked = checkReadCall(raw);
    if (!checked.ok) {
      const name = typeof (raw as { name?: unknown } | null)?.name === 'string' ? (raw as { name: string }).name : '';
      return this.finish(entrypoint, failure(name.slice(0, 200), null, new RouterError('invalid_call', checked.message)));
    }
    return this.finish(entrypoint, await this.readValid(checked.call, budget, envelope));
  }

  private async readValid(call: ReadCall, budget: Budget, envelope: Envelope): Promise<ReadAnswer> {
    const resolution = this.registry.resolve(call.name, call.server);
    if (resolution.kind === 'unknown') {
      return failure(call.name, call.server ?? null, new RouterError('unknown_tool', unknownToolMessage(call.server)));
    }
    if (resolution.kind === 'ambiguous') {
      const message = `several backends serve a tool of this name; name one with \`server\`: ${resolution.servers.join(', ')}`;
      return failure(call.name, null, new RouterError('unknown_tool', message));
    }
    const { tool } = resolution;
    const decision = this.gate.decide(tool);
    if (!decision.readOnly) {
      const why =
        decision.reason === 'operator_deny'
          ? 'the operator policy denies this tool on the read path'
          : 'this tool is not read-only (its backend does not annotate it readOnlyHint: true)';
      return failure(tool.name, tool.backend, new RouterError('blocked', why));
    }
    const args = canonicalArguments(call.arguments);
    const binding: CursorBinding = { backend: tool.backend, tool: tool.name, argsDigest: argumentsDigest(args) };
    let from: Position | undefined;
    if (call.cursor !== undefined) {
      const checked = this.cursors.check(call.cursor, binding);
      if (!checked.ok) {
        return failure(tool.name, tool.backend, new RouterError('invalid_cursor', cursorMessage(checked.reason)));
      }
      from = checked.position;
    }
    let result: ToolResultLike;
    try {
      result = await this.backends.callTool(tool.backend, tool.name, args);
    } catch (err) {
      return failure(tool.name, tool.backend, asRouterError(err));
    }
    if (result.isError === true) {
      return failure(tool.name, tool.backend, new RouterError('backend_failed', backendErrorText(result)));
    }
    return this.bound({ tool: tool.name, server: tool.backend, status: 'ok' }, result, from, budget, envelope, binding);
  }

  /**
   * Cuts the result to the budget. The page is sized with room for a cursor, then the answer with
   * the real cursor is measured; if it is still over, the page is re-cut with the overshoot removed.
   */
  private bound(
    base: ReadAnswer,
    raw: ToolResultLike,
    from: Position | undefined,
    budget: Budget,
    envelope: Envelope,
    binding: CursorBinding,
  ): ReadAnswer {
    const result = dedupeResult(raw);
    let maxBytes = budget.maxBytes;
    for (let attempt = 0; attempt < 4; attempt++) {
      const limits = { maxBytes, maxItems: budget.maxItems };
      const sizeOf = (candidate: ToolResultLike): number =>
        byteLength(envelope(cutAnswer(base, candidate, budget, 'bytes', 'x'.repeat(CURSOR_RESERVE_CHARS), 0)));
      const outcome = boundResult(result, limits, from, sizeOf);
      if (!outcome.truncated) return { ...base, result: outcome.result };
      const cursor =
        outcome.next && outcome.resumable ? this.cursors.issue(binding, outcome.next) : undefined;
      const reason = outcome.backendCursor ? 'backend_cursor' : (outcome.reason ?? 'bytes');
      const answer = cutAnswer(base, outcome.result, budget, reason, cursor, this.cursors.ttlSeconds);
      const overshoot = byteLength(envelope(answer)) - budget.maxBytes;
      if (overshoot <= 0 || maxBytes - overshoot < 1) return answer;
      maxBytes -= overshoot;
    }
    return failure(base.tool, base.server, new RouterError('response_too_large', 'the result cannot be cut to fit the response budget'));
  }

  private finish(entrypoint: Entrypoint, answer: ReadAnswer): ReadAnswer {
    this.logger.debug({ msg: 'read call', entrypoint, backend: answer.server, status: answer.status });
    return answer;
  }
}

function cutAnswer(
  base: ReadAnswer,
  result: ToolResultLike,
  budget: Budget,
  reason: Bounds['reason'],
  cursor: string | undefined,
  ttlSeconds: number,
): ReadAnswer {
  const bounds: Bounds = { reason, item_limit: budget.maxItems, byte_limit: budget.maxBytes, resumable: cursor !== undefined };
  return {
    ...base,
    result,
    truncated: true,
    bounds,
    ...(cursor !== undefined ? { next_cursor: cursor, cursor_expires_in_seconds: ttlSeconds } : {}),
  };
}

function failure(tool: string, server: string | null, err: RouterError): ReadAnswer {
  return { tool, server, status: statusOf(err.code), error: err.message.slice(0, MAX_ERROR_CHARS) };
}

function asRouterError(err: unknown): RouterError {
  if (err instanceof RouterError) return err;
  // Anything else is a defect of ours or the SDK's; the caller still gets one answer.
  return new RouterError('backend_failed', 'the backend call failed');
}

function unknownToolMessage(server: string | undefined): string {
  return server === undefined
    ? 'no published tool has this exact name; use find_tool for exact names'
    : 'no published tool has this exact name on that server; use find_tool for exact names';
}

function cursorMessage(reason: string): string {
  switch (reason) {
    case 'expired':
      return 'the cursor has expired; call again without a cursor';
    case 'mismatch':
      return 'the cursor belongs to another tool or other arguments';
    default:
      return 'the cursor is not one this router issued';
  }
}

function backendErrorText(result: ToolResultLike): string {
  const text = result.content
    .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .filter((t) => t !== '')
    .join('\n');
  return `backend error: ${text || 'the tool reported an error'}`;
}

function byteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

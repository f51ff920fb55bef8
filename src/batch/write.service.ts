import { Inject, Injectable } from '@nestjs/common';
import { dedupeResult } from '../answers/domain/bounding';
import { confirmationResult } from '../answers/domain/confirmation-answer';
import { referMedia } from '../answers/domain/media';
import { utf8Bytes } from '../answers/domain/model-content';
import { boundSingle, failedSingle, type SingleResult } from '../answers/domain/single-answer';
import { AccessService } from '../access/access.service';
import type { Principal } from '../common/principal';
import { RouterError } from '../common/router-error';
import { BUDGET_CONFIG } from '../config/config.tokens';
import type { BudgetConfig } from '../config/config.types';
import { CONFIRMATION_TTL_SECONDS, CursorService } from '../cursor/cursor.service';
import { writeRefusalMessage } from '../gate/domain/write-policy';
import { GateService } from '../gate/gate.service';
import { BackendCallService } from './backend-call.service';
import { CallRecordService } from './call-record.service';
import { failedCall, invalidCall, type Dispatched } from './domain/call-outcome';
import { checkWriteCall, confirmationRefusal, needsConfirmation } from './domain/write-call';
import { ToolResolutionService } from './tool-resolution.service';

import { traceCallOutcome } from './call-span';
import { toolCallSpan } from '../tracing/domain/spans';
import { TRACING, type TraceSpan, type Tracing } from '../tracing/tracing';

/** The span of every `invoke_tool`: one shape, built once, shared by its calls' spans. */
const WRITE_SPAN_SHAPE = toolCallSpan('invoke_tool');
const WRITE_SPAN = () => WRITE_SPAN_SHAPE;

/**
 * A write taken as far as the backend, or stopped to ask for confirmation (its answer whole then),
 * with the id of the confirmation it issued or used.
 */
type DispatchedWrite = (Dispatched | { kind: 'confirmation'; result: SingleResult; argsDigest: string }) & { confirmationId?: string };

/**
 * `invoke_tool` (architecture §11.2): one call of a tool that is not read-only, through the same
 * resolution, backend call and record as a read, within the single-call budget. A destructive tool
 * runs only with a confirmation token issued for this principal, tool and arguments by an earlier
 * call. Never retried, never batched.
 */
@Injectable()
export class WriteService {
  constructor(
    private readonly resolution: ToolResolutionService,
    private readonly gate: GateService,
    private readonly access: AccessService,
    private readonly cursors: CursorService,
    private readonly backendCalls: BackendCallService,
    private readonly records: CallRecordService,
    @Inject(BUDGET_CONFIG) private readonly budgets: BudgetConfig,
    @Inject(TRACING) private readonly tracing: Tracing,
  ) {}

  /**
   * `howToConfirm` tells a `confirmation_required` answer how to call again (by default: through
   * `invoke_tool` with `confirm`), for a tool published directly that takes the token itself.
   */
  write(raw: Record<string, unknown>, principal: Principal, howToConfirm?: string): Promise<SingleResult> {
    return this.tracing.inSpan(WRITE_SPAN, (span) => this.traced(raw, principal, span, howToConfirm));
  }

  private async traced(raw: Record<string, unknown>, principal: Principal, span: TraceSpan, howToConfirm: string | undefined): Promise<SingleResult> {
    const budget = { maxBytes: this.budgets.responseMaxBytes, maxItems: this.budgets.responseMaxItems };
    const started = performance.now();
    const dispatched = await this.dispatch(raw, principal, howToConfirm);
    let single: SingleResult;
    switch (dispatched.kind) {
      case 'confirmation':
        single = dispatched.result;
        break;
      case 'page':
        // A write is never called again to resume it: its result is cut without a cursor.
        single = boundSingle(dispatched.page, budget, undefined);
        break;
      case 'failed':
        single = failedSingle(dispatched.answer, dispatched.code);
        break;
    }
    traceCallOutcome(this.tracing, span, single.answer, dispatched.kind === 'failed' ? dispatched.code : undefined);
    const record = { principal, started, argsDigest: dispatched.argsDigest, bytes: utf8Bytes(single.wire), confirmationId: dispatched.confirmationId };
    this.records.record('invoke_tool', single.answer, record);
    return single;
  }

  /**
   * The write seam: resolve (by write permission) → trust → write gate → confirmation checked →
   * rate limit → backend up → confirmation used up → dispatch.
   */
  private async dispatch(raw: Record<string, unknown>, principal: Principal, howToConfirm: string | undefined): Promise<DispatchedWrite> {
    const checked = checkWriteCall(raw);
    if (!checked.ok) return invalidCall(raw, checked.message);
    const { call, confirm } = checked;
    // A tool the caller may not write is unknown to this entrypoint, exactly as on the read path.
    const found = await this.resolution.resolveCall(call, principal, (candidate) => this.access.mayWriteTool(principal, candidate));
    if (found.kind === 'failed') return found;
    const { tool, args, digest } = found;
    const decision = this.gate.decideWrite(tool);
    if (!decision.writable) return failedCall(tool.name, tool.backend, new RouterError('blocked', writeRefusalMessage(decision.reason)), digest);
    let confirmationId: string | undefined;
    let beforeDispatch: (() => Promise<RouterError | undefined>) | undefined;
    if (needsConfirmation(tool, args)) {
      const binding = { principal: principal.id, backend: tool.backend, tool: tool.name, argsDigest: digest };
      if (confirm === undefined) {
        const issued = this.cursors.issueConfirmation(binding);
        const result = confirmationResult(tool.name, tool.backend, Object.keys(args), issued.token, CONFIRMATION_TTL_SECONDS, howToConfirm);
        return { kind: 'confirmation', result, argsDigest: digest, confirmationId: issued.id };
      }
      const checkedToken = await this.cursors.checkConfirmation(confirm, binding);
      if (!checkedToken.ok) return failedCall(tool.name, tool.backend, confirmationRefusal(checkedToken.reason), digest);
      const { confirmation } = checkedToken;
      confirmationId = confirmation.id;
      // Used up only once the call is about to reach the backend: a refusal on the way (rate
      // limit, drain, backend down) leaves the token good for the same call again.
      beforeDispatch = async () => {
        const claimed = await this.cursors.claimConfirmation(confirmation);
        return claimed.ok ? undefined : confirmationRefusal(claimed.reason);
      };
    }
    const outcome = await this.backendCalls.call(tool.backend, tool.name, args, principal.id, beforeDispatch);
    if (outcome.kind === 'failed') return { ...failedCall(tool.name, tool.backend, outcome.error, digest), confirmationId };
    return {
      kind: 'page',
      page: { base: { tool: tool.name, server: tool.backend, status: 'ok' }, result: referMedia(dedupeResult(outcome.result)) },
      argsDigest: digest,
      confirmationId,
    };
  }
}

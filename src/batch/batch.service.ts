import { Inject, Injectable } from '@nestjs/common';
import { draftItem, finishBatch, skeletonSizes, type FinishedBatch, type ItemDraft } from '../answers/domain/batch-response';
import { dedupeResult, type Budget } from '../answers/domain/bounding';
import { BATCH_SHARE_ADVICE, BATCH_SHARE_NAME, tooLargeAnswer, type AnswerShape, type CursorIssuer, type Page } from '../answers/domain/bound-answer';
import { referMedia } from '../answers/domain/media';
import { utf8Bytes } from '../answers/domain/model-content';
import { boundSingle, failedSingle, type SingleResult } from '../answers/domain/single-answer';
import { AccessService } from '../access/access.service';
import type { Principal } from '../common/principal';
import { RouterError } from '../common/router-error';
import { BUDGET_CONFIG } from '../config/config.tokens';
import type { BudgetConfig } from '../config/config.types';
import { CursorService } from '../cursor/cursor.service';
import type { CursorBinding } from '../cursor/domain/cursor-codec';
import type { Position } from '../cursor/domain/position';
import { readRefusalMessage } from '../gate/domain/read-only-policy';
import { GateService } from '../gate/gate.service';
import { MetricsService } from '../metrics/metrics.service';
import { BackendCallService } from './backend-call.service';
import { CallRecordService } from './call-record.service';
import { checkBatch, type BatchEntry, type BatchRejectionCode } from './domain/batch-input';
import { failedCall, invalidCall, type CallPage, type Dispatched } from './domain/call-outcome';
import { checkReadCall, MAX_SERVER_CHARS, type ReadCall } from './domain/read-call';
import { cursorRefusal, notDispatched } from './domain/seam-refusals';
import { ToolResolutionService, type ResolvedCall } from './tool-resolution.service';
import { traceCallOutcome } from './call-span';
import { batchSpan, type NamedAttributes, toolCallSpan } from '../tracing/domain/spans';
import { TRACING, type TraceSpan, type Tracing } from '../tracing/tracing';

/** The span of every `invoke_read_tool`: one shape, built once, shared by its calls' spans. */
const SINGLE_CALL_SPAN_SHAPE = toolCallSpan('invoke_read_tool');
const SINGLE_CALL_SPAN = () => SINGLE_CALL_SPAN_SHAPE;

/** The `response_too_large` answer of a batch entry, naming its share of the batch budget. */
function tooLargeInBatch(page: Page, budget: Budget, shape: AnswerShape) {
  return tooLargeAnswer(page, budget, shape, BATCH_SHARE_NAME, BATCH_SHARE_ADVICE);
}

/** What a batch entry's audit line needs besides its final item. */
interface EntryAudit {
  started: number;
  argsDigest: string | null;
}

/** A batch refused whole before anything was dispatched (architecture §5), or its final answer. */
export type BatchOutcome = { kind: 'rejected'; code: BatchRejectionCode; message: string } | { kind: 'finished'; batch: FinishedBatch };

/**
 * The read seam (architecture §12): resolve → trust → read-only gate → cursor check → rate limit →
 * dispatch with timeout → bound the response. `invoke_read_tool` and every batch entry come
 * through `dispatch`; writes have their own door (WriteService) onto the same resolution, backend
 * call and record.
 */
@Injectable()
export class BatchService {
  constructor(
    private readonly resolution: ToolResolutionService,
    private readonly gate: GateService,
    private readonly access: AccessService,
    private readonly cursors: CursorService,
    private readonly backendCalls: BackendCallService,
    private readonly records: CallRecordService,
    private readonly metrics: MetricsService,
    @Inject(BUDGET_CONFIG) private readonly budgets: BudgetConfig,
    @Inject(TRACING) private readonly tracing: Tracing,
  ) {}

  /**
   * `invoke_read_tool`: answers one read call within the single-call budget; never throws for
   * anything the caller or a backend did. `raw` is the call as received. The answer comes with
   * the whole `tools/call` result that carries it, serialized once: bounding measured it, the
   * audit counts it, and the caller sends it. `resumeHint` goes beside a cursor when the call came
   * through a tool that cannot take one (a tool published directly).
   */
  read(raw: unknown, principal: Principal, resumeHint?: string): Promise<SingleResult> {
    // One `then` on the dispatch, not an async function: a promise and its turns less per call.
    return this.tracing.inSpan(SINGLE_CALL_SPAN, (span) => {
      const budget = { maxBytes: this.budgets.responseMaxBytes, maxItems: this.budgets.responseMaxItems };
      const started = performance.now();
      return this.dispatch(raw, principal).then((dispatched) => {
        const single =
          dispatched.kind === 'page'
            ? boundSingle(dispatched.page, budget, this.issuerFor(dispatched.page.binding, resumeHint))
            : failedSingle(dispatched.answer, dispatched.code);
        traceCallOutcome(this.tracing, span, single.answer, dispatched.kind === 'failed' ? dispatched.code : undefined);
        this.records.record('invoke_read_tool', single.answer, { principal, started, argsDigest: dispatched.argsDigest, bytes: utf8Bytes(single.wire) });
        return single;
      });
    });
  }

  /**
   * `invoke_read_tool_batch` (architecture §5): entries dispatched one after another, in order, each
   * bounded to its share of the batch budget; one entry's failure never stops the rest.
   */
  readBatch(args: Record<string, unknown>, principal: Principal): Promise<BatchOutcome> {
    // The batch's span is the parent of its entries' spans (architecture §8.1).
    return this.tracing.inSpan(batchSpan, async (span) => {
      const outcome = await this.runBatch(args, principal);
      if (this.tracing.enabled) {
        if (outcome.kind === 'rejected') span.fail(outcome.code);
        else {
          const { counts } = outcome.batch.response;
          span.setAttributes({
            'centralmcp.batch.size': counts.total,
            'centralmcp.batch.succeeded': counts.succeeded,
            'centralmcp.batch.failed': counts.failed,
          } satisfies NamedAttributes);
        }
      }
      return outcome;
    });
  }

  private async runBatch(args: Record<string, unknown>, principal: Principal): Promise<BatchOutcome> {
    const checked = checkBatch(args);
    if (!checked.ok) {
      this.metrics.recordBatch(Array.isArray(args.calls) ? args.calls.length : 0, 'rejected');
      return { kind: 'rejected', code: checked.code, message: checked.message };
    }
    const { entries } = checked;
    const budget = this.budgets.batchResponseMaxBytes;
    const skeleton = skeletonSizes(entries, MAX_SERVER_CHARS);
    const share = Math.floor((budget - skeleton.total) / entries.length);
    const drafts: ItemDraft[] = [];
    const audits: EntryAudit[] = [];
    for (const entry of entries) {
      const itemBudget: Budget = { maxBytes: skeleton.items[entry.index] + share, maxItems: this.budgets.responseMaxItems };
      const [draft, audit] = await this.tracing.inSpan(
        () => toolCallSpan('batch', entry.index),
        (span) => this.runEntry(entry, itemBudget, principal, span),
      );
      drafts.push(draft);
      audits.push(audit);
    }
    const batch = finishBatch(drafts, budget);
    // Counted once the whole answer is final, so later cuts are seen in metrics and audit.
    batch.response.results.forEach((item, i) => this.records.record('batch', item, { principal, ...audits[i], bytes: batch.itemBytes[i] }));
    this.metrics.recordBatch(entries.length, batch.response.ok ? 'ok' : 'partial');
    return { kind: 'finished', batch };
  }

  /** One batch entry, dispatched and cut to its share of the batch budget, with what its audit line needs. */
  private runEntry(entry: BatchEntry, itemBudget: Budget, principal: Principal, span: TraceSpan): Promise<[ItemDraft, EntryAudit]> {
    const started = performance.now();
    const dispatched: Dispatched<CallPage> | Promise<Dispatched<CallPage>> =
      entry.idError !== undefined
        ? failedCall(entry.name, null, new RouterError('invalid_call', entry.idError), null)
        : this.backendCalls.stopped
          ? failedCall(entry.name, null, notDispatched(), null)
          : this.dispatch(entry.call, principal);
    if (dispatched instanceof Promise) return dispatched.then((settled) => this.drafted(entry, itemBudget, span, started, settled));
    return Promise.resolve(this.drafted(entry, itemBudget, span, started, dispatched));
  }

  /** An entry's item, cut to its share, once its call has come back. */
  private drafted(entry: BatchEntry, itemBudget: Budget, span: TraceSpan, started: number, dispatched: Dispatched<CallPage>): [ItemDraft, EntryAudit] {
    const draft: ItemDraft =
      dispatched.kind === 'page'
        ? draftItem(entry, dispatched.page, itemBudget, this.issuerFor(dispatched.page.binding), tooLargeInBatch)
        : { item: { index: entry.index, id: entry.id, ...dispatched.answer }, code: dispatched.code };
    traceCallOutcome(this.tracing, span, draft.item, dispatched.kind === 'failed' ? dispatched.code : undefined);
    return [draft, { started, argsDigest: dispatched.argsDigest }];
  }

  /**
   * The read seam up to the backend's answer: every local refusal happens before any backend call.
   * Not async: a refusal is answered at once, a dispatched call with one `then` on the backend's.
   */
  private dispatch(raw: unknown, principal: Principal): Promise<Dispatched<CallPage>> {
    const checked = checkReadCall(raw);
    if (!checked.ok) return Promise.resolve(invalidCall(raw, checked.message));
    const call = checked.call;
    // One function decides discovery and calls: a tool the caller may not call is unknown to it.
    const resolved = this.resolution.resolveCall(call, principal, (candidate) => this.access.mayCallTool(principal, candidate));
    return resolved instanceof Promise
      ? resolved.then((found) => this.dispatchResolved(call, found, principal))
      : this.dispatchResolved(call, resolved, principal);
  }

  private dispatchResolved(call: ReadCall, found: ResolvedCall, principal: Principal): Promise<Dispatched<CallPage>> {
    if (found.kind === 'failed') return Promise.resolve(found);
    const { tool, args, digest } = found;
    const decision = this.gate.decide(tool);
    if (!decision.readOnly)
      return Promise.resolve(failedCall(tool.name, tool.backend, new RouterError('blocked', readRefusalMessage(decision.reason)), digest));
    const binding: CursorBinding = { backend: tool.backend, tool: tool.name, argsDigest: digest, principal: principal.id };
    let from: Position | undefined;
    if (call.cursor !== undefined) {
      const checkedCursor = this.cursors.check(call.cursor, binding);
      if (!checkedCursor.ok) {
        this.metrics.recordCursorRejected(checkedCursor.reason);
        return Promise.resolve(failedCall(tool.name, tool.backend, cursorRefusal(checkedCursor.reason), digest));
      }
      from = checkedCursor.position;
    }
    return this.backendCalls.call(tool.backend, tool.name, args, principal.id).then((outcome): Dispatched<CallPage> => {
      if (outcome.kind === 'failed') return failedCall(tool.name, tool.backend, outcome.error, digest);
      return {
        kind: 'page',
        page: { base: { tool: tool.name, server: tool.backend, status: 'ok' }, result: referMedia(dedupeResult(outcome.result)), from, binding },
        argsDigest: digest,
      };
    });
  }

  /** Issues cursors bound to one read call, counting each one. */
  private issuerFor(binding: CursorBinding, resumeHint?: string): CursorIssuer {
    return new BoundIssuer(this.cursors, this.metrics, binding, resumeHint);
  }
}

/** A call's cursor issuer: one object with no closure, since every answered call gets one. */
class BoundIssuer implements CursorIssuer {
  readonly ttlSeconds: number;

  constructor(
    private readonly cursors: CursorService,
    private readonly metrics: MetricsService,
    private readonly binding: CursorBinding,
    readonly resumeHint: string | undefined,
  ) {
    this.ttlSeconds = cursors.ttlSeconds;
  }

  issue(position: Position): string {
    this.metrics.recordCursorIssued();
    return this.cursors.issue(this.binding, position);
  }
}

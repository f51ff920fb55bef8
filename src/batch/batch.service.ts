import { Inject, Injectable, Logger } from '@nestjs/common';
import { AccessService } from '../access/access.service';
import { AuditService } from '../audit/audit.service';
import { BackendsService } from '../backends/backends.service';
import type { Entrypoint } from '../common/call-status';
import type { Principal } from '../common/principal';
import { requestContext } from '../common/request-context';
import { RouterError, statusOf, type RouterErrorCode } from '../common/router-error';
import { BACKENDS_CONFIG, BUDGET_CONFIG } from '../config/config.tokens';
import type { BackendConfig, BudgetConfig } from '../config/config.types';
import { CONFIRMATION_TTL_SECONDS, CursorService, type CursorBinding } from '../cursor/cursor.service';
import type { CatalogTool } from '../registry/registry.types';
import { dedupeResult, type Budget, type ToolResultLike } from '../answers/domain/bounding';
import type { Position } from '../cursor/domain/position';
import { argumentsDigest, canonicalArguments } from '../cursor/domain/canonical';
import { readRefusalMessage } from '../gate/domain/read-only-policy';
import { writeRefusalMessage } from '../gate/domain/write-policy';
import { GateService } from '../gate/gate.service';
import { LifecycleService } from '../lifecycle/lifecycle.service';
import { MetricsService } from '../metrics/metrics.service';
import { RateLimitService, type RateLimitBucket } from '../rate-limit/rate-limit.service';
import { RegistryService } from '../registry/registry.service';
import { TrustService } from '../trust/trust.service';
import type { ReadAnswer } from '../answers/domain/read-answer';
import { boundAnswer, type Bounded, type CursorIssuer, type Page as PageToBound } from '../answers/domain/bound-answer';
import { checkBatch, type BatchRejectionCode } from './domain/batch-input';
import { draftItem, finishBatch, skeletonSizes, utf8Bytes, type FinishedBatch, type ItemDraft } from '../answers/domain/batch-response';
import { LogThrottle } from './domain/log-throttle';
import { resultJson, textBlock } from '../answers/domain/model-content';
import { checkReadCall, MAX_SERVER_CHARS } from './domain/read-call';
import { failureWire, SINGLE_SHAPE, singleFailure, singleWire } from '../answers/domain/single-answer';

/** architecture §5: an error message is at most 500 characters. */
export const MAX_ERROR_CHARS = 500;
/** A failing backend writes at most one warn line per failure code in this window. */
const FAILURE_LOG_WINDOW_MS = 10_000;
/** A page of a call's result, with what its cursors are bound to. */
interface Page extends PageToBound {
  binding: CursorBinding;
}

/**
 * A call taken as far as the backend: either its failure (with the error's code), or a page
 * still to be bounded; with the digest of its arguments once they were valid (for the audit log).
 */
type Dispatched = ({ answer: ReadAnswer; code: RouterErrorCode; page?: undefined } | { answer?: undefined; page: Page }) & { argsDigest: string | null };

/** The single call's answer, and the whole `tools/call` result that carries it as sent. */
export interface SingleRead {
  answer: ReadAnswer;
  wire: string;
}

/** What the audit line of one call needs besides its answer. */
interface CallRecord {
  principal: Principal;
  started: number;
  argsDigest: string | null;
  /**
   * UTF-8 bytes of the call's answer as sent: the single call's whole `tools/call` result
   * (structured content and content), or a batch entry's footprint in the batch's result. Not the
   * HTTP body, which also carries the JSON-RPC frame.
   */
  bytes: number;
  /** A write's confirmation id, issued or used (issue 14). */
  confirmationId?: string;
}

/** The fields `invoke_tool` takes (issue 14): a read call's, without `cursor`, plus `confirm`. */
const WRITE_FIELDS = new Set(['name', 'server', 'arguments', 'confirm']);
const MAX_CONFIRM_CHARS = 2048;

/** A write taken as far as the backend, or stopped to ask for confirmation. */
type DispatchedWrite = (Dispatched | { confirmation: { answer: ReadAnswer; wire: string }; argsDigest: string }) & { confirmationId?: string };

/** A batch refused whole, before anything was dispatched (architecture §5). */
export interface BatchRejection {
  code: BatchRejectionCode;
  message: string;
}

/**
 * The one dispatch seam (architecture §1): resolve → read-only gate → cursor check → rate limit →
 * dispatch with timeout → bound the response. The single call and every batch entry come through `dispatch`;
 * nothing else calls a backend.
 */
@Injectable()
export class BatchService {
  /** Configured backend names: the only `backend` values metrics and audit take from an answer. */
  private readonly backendNames: ReadonlySet<string>;
  private readonly logger = new Logger(BatchService.name);
  private readonly failureLogs = new LogThrottle(FAILURE_LOG_WINDOW_MS);

  constructor(
    private readonly registry: RegistryService,
    private readonly gate: GateService,
    private readonly backends: BackendsService,
    private readonly cursors: CursorService,
    private readonly rateLimits: RateLimitService,
    private readonly metrics: MetricsService,
    private readonly access: AccessService,
    private readonly audit: AuditService,
    private readonly trust: TrustService,
    private readonly lifecycle: LifecycleService,
    @Inject(BUDGET_CONFIG) private readonly budgets: BudgetConfig,
    @Inject(BACKENDS_CONFIG) backendConfigs: readonly BackendConfig[],
  ) {
    this.backendNames = new Set(backendConfigs.map((b) => b.name));
  }

  /**
   * `invoke_tool` (issue 14): one call of a tool that is not read-only, through the same seam as a
   * read, within the single-call budget. A destructive tool runs only with a confirmation token
   * issued for this principal, tool and arguments by an earlier call. Never retried, never batched.
   */
  async write(raw: Record<string, unknown>, principal: Principal): Promise<SingleRead> {
    const budget = { maxBytes: this.budgets.responseMaxBytes, maxItems: this.budgets.responseMaxItems };
    const started = performance.now();
    const dispatched = await this.dispatchWrite(raw, principal);
    let answer: ReadAnswer;
    let wire: string;
    if ('confirmation' in dispatched) {
      ({ answer, wire } = dispatched.confirmation);
    } else {
      // A write is never called again to resume it: its result is cut without a cursor.
      const bounded = dispatched.page ? this.bound(dispatched.page, budget, false) : dispatched;
      answer = 'code' in bounded ? bounded.answer : bounded.value;
      wire = 'code' in bounded ? failureWire(singleFailure(bounded.answer, bounded.code)) : singleWire(bounded);
    }
    const record = { principal, started, argsDigest: dispatched.argsDigest, bytes: utf8Bytes(wire), confirmationId: dispatched.confirmationId };
    this.finish('invoke_tool', answer, record);
    return { answer, wire };
  }

  /**
   * `invoke_read_tool`: answers one read call within the single-call budget; never throws for
   * anything the caller or a backend did. `raw` is the call as received. The answer comes with
   * the whole `tools/call` result that carries it, serialized once: bounding measured it, the
   * audit counts it, and the caller sends it.
   */
  async read(raw: unknown, principal: Principal): Promise<SingleRead> {
    const budget = { maxBytes: this.budgets.responseMaxBytes, maxItems: this.budgets.responseMaxItems };
    const started = performance.now();
    const dispatched = await this.dispatch(raw, principal);
    const bounded = dispatched.page ? this.bound(dispatched.page, budget) : dispatched;
    const answer = 'code' in bounded ? bounded.answer : bounded.value;
    const wire = 'code' in bounded ? failureWire(singleFailure(bounded.answer, bounded.code)) : singleWire(bounded);
    this.finish('invoke_read_tool', answer, { principal, started, argsDigest: dispatched.argsDigest, bytes: utf8Bytes(wire) });
    return { answer, wire };
  }

  /**
   * `invoke_read_tool_batch` (architecture §5): entries dispatched one after another, in order, each
   * bounded to its share of the batch budget; one entry's failure never stops the rest.
   */
  async readBatch(args: Record<string, unknown>, principal: Principal): Promise<{ rejected: BatchRejection } | FinishedBatch> {
    const checked = checkBatch(args);
    if (!checked.ok) {
      this.metrics.recordBatch(Array.isArray(args.calls) ? args.calls.length : 0, 'rejected');
      return { rejected: { code: checked.code, message: checked.message } };
    }
    const { entries } = checked;
    const budget = this.budgets.batchResponseMaxBytes;
    const skeleton = skeletonSizes(entries, MAX_SERVER_CHARS);
    const share = Math.floor((budget - skeleton.total) / entries.length);
    const drafts: ItemDraft[] = [];
    const audits: { started: number; argsDigest: string | null }[] = [];
    for (const entry of entries) {
      const started = performance.now();
      const itemBudget = { maxBytes: skeleton.items[entry.index] + share, maxItems: this.budgets.responseMaxItems };
      const dispatched: Dispatched =
        entry.idError !== undefined
          ? { answer: failure(entry.name, null, new RouterError('invalid_call', entry.idError)), code: 'invalid_call', argsDigest: null }
          : this.lifecycle.stopSignal.aborted
            ? { answer: failure(entry.name, null, notDispatched()), code: 'shutting_down', argsDigest: null }
            : await this.dispatch(entry.call, principal);
      drafts.push(
        dispatched.page
          ? draftItem(entry, dispatched.page, itemBudget, this.issuerFor(dispatched.page), tooLarge)
          : { item: { index: entry.index, id: entry.id, ...dispatched.answer } },
      );
      audits.push({ started, argsDigest: dispatched.argsDigest });
    }
    const finished = finishBatch(drafts, budget);
    const { response, itemBytes } = finished;
    // Counted once the whole answer is final, so later cuts are seen in metrics and audit.
    response.results.forEach((item, i) => this.finish('batch', item, { principal, ...audits[i], bytes: itemBytes[i] }));
    this.metrics.recordBatch(entries.length, response.ok ? 'ok' : 'partial');
    return finished;
  }

  /**
   * The part of the seam reads and writes share: resolve among the tools `permitted` admits, wait
   * for a refresh the backend announced (issue 12: decided on the tools it announced), then refuse a
   * quarantined definition, before any gate reads its annotations (they are what cannot be trusted).
   */
  private async resolveTrusted(
    name: string,
    server: string | undefined,
    permitted: (tool: CatalogTool) => boolean,
  ): Promise<{ tool: CatalogTool } | { refused: RouterError; name: string; server: string | null }> {
    let resolution = this.registry.resolve(name, server, permitted);
    if (resolution.kind === 'found') {
      const settling = this.backends.toolsSettled(resolution.tool.backend);
      if (settling !== undefined) {
        const { name: toolName, backend } = resolution.tool;
        if (!(await settling)) return { refused: new RouterError('backend_timeout', 'the backend announced a change of its tools that was not loaded in time'), name: toolName, server: backend };
        resolution = this.registry.resolve(name, server, permitted);
      }
    }
    if (resolution.kind === 'unknown') return { refused: new RouterError('unknown_tool', unknownToolMessage(server)), name, server: server ?? null };
    if (resolution.kind === 'ambiguous') {
      const message = `several backends serve a tool of this name; name one with \`server\`: ${resolution.servers.join(', ')}`;
      return { refused: new RouterError('unknown_tool', message), name, server: null };
    }
    const { tool } = resolution;
    const quarantine = this.trust.quarantineReason(tool);
    if (quarantine !== undefined) return { refused: new RouterError('blocked', quarantine), name: tool.name, server: tool.backend };
    return { tool };
  }

  /** The seam up to the backend's answer: every local refusal happens before any backend call. */
  private async dispatch(raw: unknown, principal: Principal): Promise<Dispatched> {
    const checked = checkReadCall(raw);
    if (!checked.ok) return { answer: failure(nameOf(raw), null, new RouterError('invalid_call', checked.message)), code: 'invalid_call', argsDigest: null };
    const call = checked.call;
    const args = canonicalArguments(call.arguments);
    const digest = argumentsDigest(args);
    const answer = (tool: string, server: string | null, err: RouterError): Dispatched => ({ answer: failure(tool, server, err), code: err.code, argsDigest: digest });
    // One function decides discovery and calls: a tool the caller may not call is unknown to it.
    const found = await this.resolveTrusted(call.name, call.server, (candidate) => this.access.mayCallTool(principal, candidate));
    if ('refused' in found) return answer(found.name, found.server, found.refused);
    const { tool } = found;
    const decision = this.gate.decide(tool);
    if (!decision.readOnly) return answer(tool.name, tool.backend, new RouterError('blocked', readRefusalMessage(decision.reason)));
    const binding: CursorBinding = { backend: tool.backend, tool: tool.name, argsDigest: digest, principal: principal.id };
    let from: Position | undefined;
    if (call.cursor !== undefined) {
      const checkedCursor = this.cursors.check(call.cursor, binding);
      if (!checkedCursor.ok) {
        this.metrics.recordCursorRejected(checkedCursor.reason);
        return answer(tool.name, tool.backend, new RouterError('invalid_cursor', cursorMessage(checkedCursor.reason)));
      }
      from = checkedCursor.position;
    }
    const outcome = await this.unlessStopped(() => this.callBackend(tool.backend, tool.name, args, principal.id));
    if (outcome instanceof RouterError) return answer(tool.name, tool.backend, outcome);
    return { page: { base: { tool: tool.name, server: tool.backend, status: 'ok' }, result: dedupeResult(outcome), from, binding }, argsDigest: digest };
  }

  /** The write seam: resolve (by write permission) → trust → gate → writes policy → confirmation → rate limit → dispatch. */
  private async dispatchWrite(raw: Record<string, unknown>, principal: Principal): Promise<DispatchedWrite> {
    const invalid = (message: string): DispatchedWrite => ({ answer: failure(nameOf(raw), null, new RouterError('invalid_call', message)), code: 'invalid_call', argsDigest: null });
    if (Object.keys(raw).some((k) => !WRITE_FIELDS.has(k))) return invalid(`unknown field(s); allowed: ${[...WRITE_FIELDS].join(', ')}`);
    const { confirm, ...rest } = raw;
    if (confirm !== undefined && (typeof confirm !== 'string' || confirm.length < 1 || confirm.length > MAX_CONFIRM_CHARS)) {
      return invalid(`\`confirm\` must be a string of 1..${MAX_CONFIRM_CHARS} characters`);
    }
    const checked = checkReadCall(rest);
    if (!checked.ok) return invalid(checked.message);
    const call = checked.call;
    const args = canonicalArguments(call.arguments);
    const digest = argumentsDigest(args);
    const answer = (tool: string, server: string | null, err: RouterError): DispatchedWrite => ({ answer: failure(tool, server, err), code: err.code, argsDigest: digest });
    // A tool the caller may not write is unknown to this entrypoint, exactly as on the read path.
    const found = await this.resolveTrusted(call.name, call.server, (candidate) => this.access.mayWriteTool(principal, candidate));
    if ('refused' in found) return answer(found.name, found.server, found.refused);
    const { tool } = found;
    const decision = this.gate.decideWrite(tool);
    if (!decision.writable) return answer(tool.name, tool.backend, new RouterError('blocked', writeRefusalMessage(decision.reason)));
    let confirmationId: string | undefined;
    if (needsConfirmation(tool, args)) {
      const binding = { principal: principal.id, backend: tool.backend, tool: tool.name, argsDigest: digest };
      if (confirm === undefined) {
        const issued = this.cursors.issueConfirmation(binding);
        return { confirmation: confirmationAnswer(tool, Object.keys(args), issued.token), argsDigest: digest, confirmationId: issued.id };
      }
      const used = await this.cursors.useConfirmation(confirm as string, binding);
      if (!used.ok && used.reason === 'store_unavailable') {
        // Fail closed (issue 14): without the shared record a replayed token could write twice.
        return answer(tool.name, tool.backend, new RouterError('confirmation_unavailable', CONFIRMATION_UNAVAILABLE));
      }
      if (!used.ok) return answer(tool.name, tool.backend, new RouterError('blocked', confirmationMessage(used.reason)));
      confirmationId = used.id;
    }
    const outcome = await this.unlessStopped(() => this.callBackend(tool.backend, tool.name, args, principal.id));
    if (outcome instanceof RouterError) return { ...answer(tool.name, tool.backend, outcome), confirmationId };
    const binding: CursorBinding = { backend: tool.backend, tool: tool.name, argsDigest: digest, principal: principal.id };
    return { page: { base: { tool: tool.name, server: tool.backend, status: 'ok' }, result: dedupeResult(outcome), binding }, argsDigest: digest, confirmationId };
  }

  /**
   * Takes a rate-limit token, then calls the backend, timed. Only a call that passed every local
   * check gets here, so refusals cost no token (architecture §7). Failures come back as values.
   */
  private async callBackend(backend: string, tool: string, args: Record<string, unknown>, principal: string): Promise<ToolResultLike | RouterError> {
    const limited = await this.rateLimits.acquire(backend, principal);
    if (!limited.ok) {
      // architecture §7 (issue 15): the shared store is away and its policy is fail closed.
      if (limited.reason === 'store_unavailable') return new RouterError('rate_limited', 'rate limit: the shared rate-limit store is unavailable');
      this.metrics.recordRateLimitTimeout(bucketLabel(limited.bucket, backend));
      return new RouterError('rate_limited', `rate limit: no token within ${limited.maxWaitMs} ms`);
    }
    for (const wait of limited.waits) this.metrics.observeRateLimitWait(bucketLabel(wait.bucket, backend), wait.waitMs / 1000);
    const started = performance.now();
    let outcome: ToolResultLike | RouterError;
    /** Why the call failed, in the router's words (a tool error's own text may echo the arguments). */
    let why = '';
    try {
      const result = await this.backends.callTool(backend, tool, args);
      outcome = result.isError === true ? new RouterError('backend_failed', backendErrorText(result)) : result;
      why = 'the tool answered isError: true';
    } catch (err) {
      outcome = asRouterError(err);
      why = outcome.message;
    }
    const seconds = (performance.now() - started) / 1000;
    this.metrics.observeBackendCall(backend, outcome instanceof RouterError ? 'error' : 'ok', seconds);
    if (outcome instanceof RouterError) this.logFailure(backend, tool, outcome.code, why, seconds);
    return outcome;
  }

  /**
   * A failed backend call at `warn` (issue 12): the audit line says only `error`, an operator needs
   * the why. Throttled per backend and failure code; never argument values.
   */
  private logFailure(backend: string, tool: string, code: RouterErrorCode, why: string, seconds: number): void {
    const verdict = this.failureLogs.check(`${backend}\u0000${code}`, performance.now());
    if (!verdict.write) return;
    this.logger.warn({
      msg: 'backend call failed',
      backend,
      tool,
      code,
      error: why,
      durationMs: Math.round(seconds * 1000),
      ...(verdict.suppressed > 0 ? { suppressedSinceLast: verdict.suppressed } : {}),
    });
  }

  /**
   * The call's outcome, or `shutting_down` as soon as the drain deadline passes (issue 12): the
   * caller gets its answer now, and the backend call left behind ends when the backends close.
   */
  private unlessStopped(call: () => Promise<ToolResultLike | RouterError>): Promise<ToolResultLike | RouterError> {
    // Checked before the call starts: a stopped router takes no token and reaches no backend.
    if (this.lifecycle.stopSignal.aborted) return Promise.resolve(notDispatched());
    return this.lifecycle.untilStopped(call(), stoppedAtDeadline);
  }

  /** Cuts a page to the single call's budget, issuing cursors bound to the page's call when `resumable`. */
  private bound(page: Page, budget: Budget, resumable = true): Bounded | { answer: ReadAnswer; code: RouterErrorCode } {
    const issuer = resumable ? this.issuerFor(page) : undefined;
    return boundAnswer(page, budget, SINGLE_SHAPE, issuer) ?? { answer: tooLarge(page), code: 'response_too_large' };
  }

  private issuerFor(page: Page): CursorIssuer {
    return {
      issue: (position: Position) => {
        this.metrics.recordCursorIssued();
        return this.cursors.issue(page.binding, position);
      },
      ttlSeconds: this.cursors.ttlSeconds,
    };
  }

  /**
   * Counts and audits every call by its final status, once, whichever entrypoint it came through
   * (architecture §8, §10). Label values come from closed sets: `server` is a configured backend or "none".
   */
  private finish(entrypoint: Entrypoint, answer: ReadAnswer, call: CallRecord): void {
    const backend = answer.server !== null && this.backendNames.has(answer.server) ? answer.server : null;
    this.metrics.recordCall(entrypoint, backend ?? 'none', answer.status);
    if (answer.truncated) this.metrics.recordTruncation(entrypoint);
    // One lookup of the request's context for its three fields.
    const context = requestContext.getStore();
    this.audit.record({
      principal: call.principal.id,
      entrypoint,
      backend,
      tool: answer.tool,
      argsDigest: call.argsDigest,
      status: answer.status,
      durationMs: Math.round((performance.now() - call.started) * 1000) / 1000,
      responseBytes: call.bytes,
      correlationId: context?.requestId,
      traceparent: context?.traceparent,
      protocolVersion: context?.protocolVersion,
      ...(call.confirmationId !== undefined ? { confirmationId: call.confirmationId } : {}),
    });
  }
}

/** Names of a preview parameter: `dry_run`, and `dryRun` as the reference filesystem server spells it. */
const DRY_RUN_PARAMETERS = ['dry_run', 'dryRun'];

/**
 * A destructive tool (`destructiveHint` true or missing, as MCP defaults it) needs confirmation,
 * unless it has a dry-run parameter and is called with it set to true (a preview).
 */
function needsConfirmation(tool: CatalogTool, args: Record<string, unknown>): boolean {
  if (tool.annotations?.destructiveHint === false) return false;
  const properties = tool.inputSchema.properties;
  if (typeof properties !== 'object' || properties === null) return true;
  return !DRY_RUN_PARAMETERS.some((p) => Object.hasOwn(properties, p) && args[p] === true);
}

/** The answer that asks for confirmation: what would be called, with argument names, never values. */
function confirmationAnswer(tool: CatalogTool, argumentNames: string[], token: string): { answer: ReadAnswer; wire: string } {
  const answer: ReadAnswer = { tool: tool.name, server: tool.backend, status: 'confirmation_required' };
  const value = {
    ok: false,
    ...answer,
    summary: { tool: tool.name, server: tool.backend, argument_names: argumentNames },
    message:
      'This tool may change or delete data. To run it, call invoke_tool again with the same name, server and ' +
      `arguments plus \`confirm\` set to \`confirmation\` (single use, within ${CONFIRMATION_TTL_SECONDS} s).`,
    confirmation: token,
    confirmation_expires_in_seconds: CONFIRMATION_TTL_SECONDS,
  };
  const json = JSON.stringify(value);
  return { answer, wire: resultJson([JSON.stringify(textBlock(json))], json, false) };
}

const CONFIRMATION_UNAVAILABLE =
  'the confirmation could not be checked: the shared record of used confirmations (Redis) is unavailable, so nothing was called; ' +
  'send the same call with the same `confirm` again shortly (if it then reads "already used", call without `confirm` for a new one)';

function confirmationMessage(reason: string): string {
  switch (reason) {
    case 'used':
      return 'the confirmation was already used; call without `confirm` for a new one';
    case 'expired':
      return 'the confirmation has expired; call without `confirm` for a new one';
    case 'mismatch':
      return 'the confirmation was issued for another caller, tool or arguments';
    default:
      return 'the confirmation is not one this router issued';
  }
}

/** The metric label of a rate-limit bucket: `global`, `principal`, or the backend's own name. */
function bucketLabel(bucket: RateLimitBucket, backend: string): string {
  return bucket === 'backend' ? backend : bucket;
}

function notDispatched(): RouterError {
  return new RouterError('shutting_down', 'router shutting down: the call was not dispatched');
}

function stoppedAtDeadline(): RouterError {
  return new RouterError('shutting_down', 'router shutting down: the call was stopped at the drain deadline');
}

function tooLarge(page: PageToBound): ReadAnswer {
  return failure(page.base.tool, page.base.server, new RouterError('response_too_large', 'the result cannot be cut to fit the response budget'));
}

function failure(tool: string, server: string | null, err: RouterError): ReadAnswer {
  return { tool, server, status: statusOf(err.code), error: err.message.slice(0, MAX_ERROR_CHARS) };
}

function nameOf(raw: unknown): string {
  const name = raw !== null && typeof raw === 'object' ? (raw as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name.slice(0, 200) : '';
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

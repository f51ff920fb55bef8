import { Inject, Injectable } from '@nestjs/common';
import { boundResourceRead, type ResourceContents } from '../answers/domain/resource-answer';
import { utf8Bytes } from '../answers/domain/model-content';
import { AccessService } from '../access/access.service';
import type { CallStatus } from '../common/call-status';
import { isJsonObject } from '../common/json-object';
import type { Principal } from '../common/principal';
import { RouterError, statusOf } from '../common/router-error';
import { BUDGET_CONFIG } from '../config/config.tokens';
import type { BudgetConfig } from '../config/config.types';
import { argumentsDigest } from '../cursor/domain/canonical';
import type { CursorBinding } from '../cursor/domain/cursor-codec';
import { CursorService } from '../cursor/cursor.service';
import type { Position } from '../cursor/domain/position';
import { MetricsService } from '../metrics/metrics.service';
import { originOfName, originOfUri, type OfferingKind, type PublishedOffering, publishedUri } from '../registry/domain/offerings';
import { OfferingCatalog } from '../registry/offering-catalog.service';
import { BackendCallService } from './backend-call.service';
import { CallRecordService } from './call-record.service';
import { listPage } from './domain/list-page';
import { checkPromptGet, checkResourceRead, promptResult } from './domain/offering-requests';
import { MAX_CURSOR_CHARS } from './domain/read-call';
import { cursorRefusal } from './domain/seam-refusals';

/**
 * What a request about resources or prompts came to. `not_found`: no such resource or prompt for
 * this caller (one it may not use answers the same); `invalid_params`: the request itself is
 * wrong; `failed`: the backend or the router's limits failed it. `resultJson` is the MCP result.
 */
export type OfferingOutcome = { ok: true; resultJson: string } | { ok: false; kind: 'not_found' | 'invalid_params' | 'failed'; message: string };

/** The `tool` of a resource read's audit line and cursor: the method, since a URI may carry values. */
const READ_RESOURCE = 'resources/read';

/**
 * A backend's resources and prompts through the router (architecture §16): the listings each
 * caller may see, and reads and gets through the seam's end (access by backend, rate-limit tokens,
 * the backend's deadline, the drain), bounded like a tool answer, each counted and audited once.
 */
@Injectable()
export class OfferingsService {
  constructor(
    private readonly catalog: OfferingCatalog,
    private readonly access: AccessService,
    private readonly backendCalls: BackendCallService,
    private readonly cursors: CursorService,
    private readonly records: CallRecordService,
    private readonly metrics: MetricsService,
    @Inject(BUDGET_CONFIG) private readonly budgets: BudgetConfig,
  ) {}

  /** Whether `principal` may use some backend that declared the capability `kind` belongs to. */
  declares(kind: OfferingKind, principal: Principal): boolean {
    return this.catalog.backendsDeclaring(kind).some((backend) => this.access.mayUseOfferings(principal, backend));
  }

  /** Whether any backend declared resources or prompts (whoever may use it). */
  anyDeclared(): boolean {
    return this.catalog.backendsDeclaring('resources').length > 0 || this.catalog.backendsDeclaring('prompts').length > 0;
  }

  /** Calls `listener` when a kind's listing may have changed (after a backend's `list_changed` was listed again). */
  onChanged(listener: (kind: OfferingKind) => void): void {
    this.catalog.onChanged(listener);
  }

  /** One page of a listing: every backend the caller may use, in the order they first connected. */
  list<K extends OfferingKind>(
    kind: K,
    cursor: unknown,
    principal: Principal,
  ): { ok: true; items: PublishedOffering[K][]; nextCursor?: string } | { ok: false; message: string } {
    return listPage(this.listAll(kind, principal), cursor);
  }

  /** The whole listing the caller sees, every page of it. */
  listAll<K extends OfferingKind>(kind: K, principal: Principal): PublishedOffering[K][] {
    return this.catalog
      .backendsDeclaring(kind)
      .filter((backend) => this.access.mayUseOfferings(principal, backend))
      .flatMap((backend) => this.catalog.listOf(backend, kind));
  }

  /** `resources/read` `{uri, cursor?}`: the backend's answer, bounded to the single-call budget. */
  async read(params: Record<string, unknown>, principal: Principal): Promise<OfferingOutcome> {
    const started = performance.now();
    const checked = checkResourceRead(params, MAX_CURSOR_CHARS);
    if (!checked.ok) return { ok: false, kind: 'invalid_params', message: checked.message };
    const { uri, cursor } = checked;
    const origin = originOfUri(uri);
    if (origin === undefined || !this.catalog.declares(origin.backend, 'resources') || !this.access.mayUseOfferings(principal, origin.backend)) {
      return { ok: false, kind: 'not_found', message: `Resource not found: this router serves no resource ${uri.slice(0, 200)}` };
    }
    const digest = argumentsDigest({ uri: origin.id });
    const record = (status: CallStatus, bytes: number, truncated = false) =>
      this.records.record(
        'read_resource',
        { tool: READ_RESOURCE, server: origin.backend, status, ...(truncated ? { truncated: true } : {}) },
        { principal, started, argsDigest: digest, bytes },
      );
    const binding: CursorBinding = { backend: origin.backend, tool: READ_RESOURCE, argsDigest: digest, principal: principal.id };
    let from: Position | undefined;
    if (cursor !== undefined) {
      const verdict = this.cursors.check(cursor, binding);
      if (!verdict.ok) {
        this.metrics.recordCursorRejected(verdict.reason);
        record('invalid_cursor', 0);
        return { ok: false, kind: 'invalid_params', message: `Invalid params: ${cursorRefusal(verdict.reason).message}` };
      }
      from = verdict.position;
    }
    const outcome = await this.backendCalls.request(origin.backend, { method: 'resources/read', uri: origin.id }, principal.id);
    if (outcome.kind === 'failed') return this.failed(outcome.error, (status) => record(status, 0));
    const contents = Array.isArray(outcome.result.contents) ? (outcome.result.contents.filter(isJsonObject) as ResourceContents[]) : [];
    const issuer = {
      issue: (position: Position) => {
        this.metrics.recordCursorIssued();
        return this.cursors.issue(binding, position);
      },
      ttlSeconds: this.cursors.ttlSeconds,
    };
    const budget = { maxBytes: this.budgets.responseMaxBytes, maxItems: this.budgets.responseMaxItems };
    const bounded = boundResourceRead(contents, budget, from, issuer, uri, (own) => publishedUri(origin.backend, own));
    if (bounded === undefined)
      return this.failed(new RouterError('response_too_large', 'the resource cannot be cut to fit the response budget'), (status) => record(status, 0));
    record('ok', utf8Bytes(bounded.json), bounded.truncated);
    return { ok: true, resultJson: bounded.json };
  }

  /** `prompts/get` `{name, arguments?}`: the backend's prompt, its texts cleaned and its resource URIs published. */
  async getPrompt(params: Record<string, unknown>, principal: Principal): Promise<OfferingOutcome> {
    const started = performance.now();
    const checked = checkPromptGet(params);
    if (!checked.ok) return { ok: false, kind: 'invalid_params', message: checked.message };
    const origin = originOfName(checked.name);
    const listed =
      origin !== undefined &&
      this.access.mayUseOfferings(principal, origin.backend) &&
      this.catalog.listOf(origin.backend, 'prompts').some((prompt) => prompt.name === checked.name);
    if (!listed || origin === undefined) return { ok: false, kind: 'invalid_params', message: `Invalid params: unknown prompt ${checked.name.slice(0, 200)}` };
    const argsDigest = argumentsDigest(checked.arguments);
    const record = (status: CallStatus, bytes: number) =>
      this.records.record('get_prompt', { tool: origin.id, server: origin.backend, status }, { principal, started, argsDigest, bytes });
    const outcome = await this.backendCalls.request(origin.backend, { method: 'prompts/get', name: origin.id, arguments: checked.arguments }, principal.id);
    if (outcome.kind === 'failed') return this.failed(outcome.error, (status) => record(status, 0));
    const resultJson = JSON.stringify(promptResult(outcome.result, (own) => publishedUri(origin.backend, own)));
    // A prompt is not cut (its messages are one whole), but one over the budget is refused, not sent.
    if (utf8Bytes(resultJson) > this.budgets.responseMaxBytes) {
      return this.failed(new RouterError('response_too_large', 'the prompt is larger than the response budget'), (status) => record(status, 0));
    }
    record('ok', utf8Bytes(resultJson));
    return { ok: true, resultJson };
  }

  /** A failure in the router's words (never the backend's text, which may echo arguments), recorded once. */
  private failed(error: RouterError, record: (status: CallStatus) => void): OfferingOutcome {
    record(statusOf(error.code));
    return { ok: false, kind: 'failed', message: `${error.code}: ${error.message}` };
  }
}

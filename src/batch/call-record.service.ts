import { Inject, Injectable } from '@nestjs/common';
import type { ReadAnswer } from '../answers/domain/read-answer';
import { AuditService } from '../audit/audit.service';
import type { Entrypoint } from '../common/call-status';
import type { Principal } from '../common/principal';
import { requestContext } from '../common/request-context';
import { ConfigService } from '../config/config.service';
import { BACKENDS_CONFIG } from '../config/config.tokens';
import type { BackendConfig } from '../config/config.types';
import { LearningService } from '../learning/learning.service';
import { MetricsService } from '../metrics/metrics.service';

/** What the audit line of one call needs besides its answer. */
export interface CallRecord {
  principal: Principal;
  /** `performance.now()` when the call came in. */
  started: number;
  argsDigest: string | null;
  /**
   * UTF-8 bytes of the call's answer as sent: the single call's whole `tools/call` result
   * (structured content and content), or a batch entry's footprint in the batch's result. Not the
   * HTTP body, which also carries the JSON-RPC frame.
   */
  bytes: number;
  /** A write's confirmation id, issued or used. */
  confirmationId?: string;
}

/**
 * Counts and audits every call by its final status, once, whichever entrypoint it came through
 * (architecture §8, §10; step 13 of the seam, §12).
 */
@Injectable()
export class CallRecordService {
  /**
   * Backend names configured since boot: the only `backend` values metrics and audit take from an
   * answer. A backend a reload removed stays, so its calls still in flight are recorded by name.
   */
  private readonly backendNames: Set<string>;

  constructor(
    private readonly metrics: MetricsService,
    private readonly audit: AuditService,
    @Inject(BACKENDS_CONFIG) backendConfigs: readonly BackendConfig[],
    configs: ConfigService,
    private readonly learning: LearningService,
  ) {
    this.backendNames = new Set(backendConfigs.map((b) => b.name));
    configs.onReload((next) => {
      for (const backend of next.backends) this.backendNames.add(backend.name);
    });
  }

  /** Label values come from closed sets: `server` is a configured backend or "none". */
  record(entrypoint: Entrypoint, answer: ReadAnswer, call: CallRecord): void {
    const backend = answer.server !== null && this.backendNames.has(answer.server) ? answer.server : null;
    this.metrics.recordCall(entrypoint, backend ?? 'none', answer.status);
    // A successful call teaches `find_tool` which tool its principal's last request was after.
    if (answer.status === 'ok' && backend !== null) this.learning.called(call.principal, backend, answer.tool);
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
      confirmationId: call.confirmationId,
    });
  }
}

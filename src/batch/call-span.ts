import type { RouterErrorCode } from '../common/router-error';
import { callOutcomeAttributes } from '../tracing/domain/spans';
import type { TraceSpan, Tracing } from '../tracing/tracing';

/**
 * Ends a tool call's span with how the call came out: the tool and backend it resolved to, its
 * final status and, when it failed, its code as `error.type` (architecture §8.1). `failedCode` is
 * the dispatch's code; an answer that is not `ok` without one failed at bounding
 * (`response_too_large`), and a confirmation request is not a failure.
 */
export function traceCallOutcome(
  tracing: Tracing,
  span: TraceSpan,
  answer: { tool: string; server: string | null; status: string },
  failedCode: RouterErrorCode | undefined,
): void {
  if (!tracing.enabled) return;
  const code = failedCode ?? (answer.status === 'ok' || answer.status === 'confirmation_required' ? undefined : 'response_too_large');
  span.setAttributes(callOutcomeAttributes({ tool: answer.tool, server: answer.server, status: answer.status, code }));
  if (code !== undefined) span.fail(code);
}

import type { FindToolAnswer } from '../../discovery/find-tool.service';
import type { BatchRejectionCode } from '../../batch/domain/batch-input';
import { resultJson, textBlock } from '../../answers/domain/model-content';
import type { CallStatus } from '../../common/call-status';
import type { RouterErrorCode } from '../../common/router-error';

/**
 * Every code the router's own refusals carry (README "Errors"): a call's failure codes, a whole
 * batch's rejections, `find_tool`'s bad arguments, and a tool the router does not publish.
 */
export type RefusalCode = RouterErrorCode | BatchRejectionCode | 'invalid_arguments';

/** The one shape of what the router itself refuses: `{ok: false, status, error: {code, message}}`. */
export interface Refusal {
  ok: false;
  status: Exclude<CallStatus, 'ok'>;
  error: { code: RefusalCode; message: string };
}

/** The `status` beside a refusal's code: `invalid_call` for bad input, else the code's own status. */
export function refusal(code: BatchRejectionCode | 'invalid_arguments' | 'unknown_tool', message: string): Refusal {
  return { ok: false, status: code === 'unknown_tool' ? 'unknown_tool' : 'invalid_call', error: { code, message } };
}

/**
 * A refusal as a `tools/call` result: nothing was dispatched, so `isError: true` (a client shows
 * it to the model, as the SDK's own server does), and its one text block is the whole answer.
 */
export function refusalResult(value: Refusal): string {
  return wholeAsText(JSON.stringify(value), true);
}

/** `find_tool`'s result: its answer as structured content, and as one compact JSON text block. */
export function findToolResult(answer: FindToolAnswer): string {
  return wholeAsText(JSON.stringify(answer), false);
}

function wholeAsText(json: string, isError: boolean): string {
  return resultJson([JSON.stringify(textBlock(json))], json, isError);
}

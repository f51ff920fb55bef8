import type { CallStatus } from './call-status';

/**
 * Every failure the router can name. Errors stay values with a code until an answer is shaped:
 * `statusOf` below turns a code into a call status (for the answers module), and `mcp/` turns the
 * refusals of a request into JSON-RPC errors and HTTP statuses (architecture §12, §13).
 */
export type RouterErrorCode =
  | 'invalid_call'
  | 'unknown_tool'
  | 'blocked'
  | 'invalid_cursor'
  | 'backend_unavailable'
  | 'backend_timeout'
  | 'backend_failed'
  | 'response_too_large'
  | 'rate_limited'
  | 'confirmation_unavailable'
  | 'shutting_down';

/**
 * A local failure with a closed code. `message` is the router's own words and never contains
 * argument values, so it may go anywhere: answers, logs. `backendMessage` is a backend's own
 * message about the call (a tool error's text), which may echo the arguments: it goes only into
 * the answer to the caller who sent them (architecture §5), never
 * into a log line, a metric, an audit line or a span.
 */
export class RouterError extends Error {
  constructor(
    readonly code: RouterErrorCode,
    message: string,
    readonly backendMessage?: string,
  ) {
    super(message);
    this.name = 'RouterError';
  }
}

/** The call status a failure answers with (architecture §5: every backend-side failure is `error`). */
export function statusOf(code: RouterErrorCode): Exclude<CallStatus, 'ok'> {
  switch (code) {
    case 'invalid_call':
    case 'unknown_tool':
    case 'blocked':
    case 'invalid_cursor':
      return code;
    case 'backend_unavailable':
    case 'backend_timeout':
    case 'backend_failed':
    case 'response_too_large':
    case 'rate_limited':
    case 'confirmation_unavailable':
    case 'shutting_down':
      return 'error';
  }
}

import type { ToolResultLike } from '../../answers/domain/bounding';
import { MAX_ERROR_CHARS } from '../../answers/domain/read-answer';
import { cleanText } from '../../registry/domain/sanitize';
import { RouterError } from '../../common/router-error';
import type { CursorRejection } from '../../cursor/domain/cursor-codec';

// The failures the seam itself names, each with the message a caller reads (architecture §13).
// Messages describe what happened and never contain argument values; a backend's own message
// travels apart, as `backendMessage` (see RouterError).

/** A backend announced a change of its tools and the refresh did not arrive in time. */
export function toolsNotSettled(): RouterError {
  return new RouterError('backend_timeout', 'the backend announced a change of its tools that was not loaded in time');
}

/**
 * No tool the caller may call has this exact name (on `server`, when given). Without `server`,
 * `notConnected` are the servers the caller may use that are not connected now: their tools are
 * not known, so the name may be one of theirs.
 */
export function unknownTool(server: string | undefined, notConnected: readonly { name: string; status: string }[] = []): RouterError {
  if (server !== undefined) return new RouterError('unknown_tool', 'no published tool has this exact name on that server; use find_tool for exact names');
  if (notConnected.length === 0) return new RouterError('unknown_tool', 'no published tool has this exact name; use find_tool for exact names');
  const which = notConnected.map((s) => `${s.name} (${s.status})`).join(', ');
  const these = notConnected.length === 1 ? 'this server is' : 'these servers are';
  return new RouterError(
    'unknown_tool',
    `no published tool has this exact name among the servers connected; ${these} not connected and may serve it: ${which}; try again shortly, or use find_tool for exact names`,
  );
}

/** Several backends serve the name and no `server` picked one (architecture §4). */
export function ambiguousTool(servers: readonly string[]): RouterError {
  return new RouterError('unknown_tool', `several backends serve a tool of this name; name one with \`server\`: ${servers.join(', ')}`);
}

/**
 * Several backends serve the name and the caller can call none of them (each quarantined, or
 * refused by a gate): no server is named, since find_tool offers none of them.
 */
export function noCallableTwin(): RouterError {
  return new RouterError('blocked', 'no tool of this exact name can be called here; use find_tool for the tools you can call');
}

/** A cursor that is not this call's, or no longer good. */
export function cursorRefusal(reason: CursorRejection): RouterError {
  switch (reason) {
    case 'expired':
      return new RouterError('invalid_cursor', 'the cursor has expired; call again without a cursor');
    case 'mismatch':
      return new RouterError('invalid_cursor', 'the cursor belongs to another tool or other arguments');
    default:
      return new RouterError('invalid_cursor', 'the cursor is not one this router issued');
  }
}

/** The router was already stopping: the call took no token and reached no backend. */
export function notDispatched(): RouterError {
  return new RouterError('shutting_down', 'router shutting down: the call was not dispatched');
}

/** The drain deadline passed while the call was under way; its backend call is left behind. */
export function stoppedAtDeadline(): RouterError {
  return new RouterError('shutting_down', 'router shutting down: the call was stopped at the drain deadline');
}

/** The shared rate-limit store is away and its policy is fail closed (architecture §7). */
export function rateLimitStoreUnavailable(): RouterError {
  return new RouterError('rate_limited', 'rate limit: the shared rate-limit store is unavailable');
}

/** No token came within the longest wait allowed (architecture §7). */
export function noTokenInTime(maxWaitMs: number): RouterError {
  return new RouterError('rate_limited', `rate limit: no token within ${maxWaitMs} ms`);
}

/**
 * A backend result with `isError: true`. Its text blocks, joined, are the backend's own message:
 * it helps the model correct its call, and it may echo the arguments (an access-denied path), so
 * it rides apart from the router's words (`backendMessage`) and reaches only the answer to the
 * caller who sent them. Cleaned as a tool description is (terminal escapes, invisible
 * characters, line breaks: one visible line), since it sits in the router's own `error` field.
 */
export function toolErrorOf(result: ToolResultLike): RouterError {
  const text = result.content
    .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .filter((t) => t !== '')
    .join('\n');
  const message = cleanText(text, MAX_ERROR_CHARS);
  return message === ''
    ? new RouterError('backend_failed', 'backend error: the tool reported an error')
    : new RouterError('backend_failed', 'backend error', message);
}

/** What a backend call threw, as a failure: a RouterError as is, anything else (a defect of ours or the SDK's) as `backend_failed`. */
export function thrownError(err: unknown): RouterError {
  if (err instanceof RouterError) return err;
  return new RouterError('backend_failed', 'the backend call failed');
}

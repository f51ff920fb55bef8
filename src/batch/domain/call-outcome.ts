import type { Page } from '../../answers/domain/bound-answer';
import { failureAnswer, type ReadAnswer } from '../../answers/domain/read-answer';
import { isJsonObject } from '../../common/json-object';
import { RouterError, type RouterErrorCode } from '../../common/router-error';
import type { CursorBinding } from '../../cursor/domain/cursor-codec';

/** A read's page, with what the cursors issued for it are bound to. */
export interface CallPage extends Page {
  binding: CursorBinding;
}

/**
 * A call refused on the way or failed at the backend: its answer, and the error's code (the single
 * call's `error.code`, finer than the status).
 */
export interface FailedCall {
  kind: 'failed';
  answer: ReadAnswer;
  code: RouterErrorCode;
  argsDigest: string | null;
}

/**
 * A call taken as far as the backend, told apart by `kind`: `failed`, or `page`, the backend's
 * result still to be bounded. `argsDigest` is the digest of the arguments once they were valid,
 * for the audit line.
 */
export type Dispatched<P extends Page = Page> = FailedCall | { kind: 'page'; page: P; argsDigest: string };

/** A call that failed with `err`, answered under `tool` and `server`. */
export function failedCall(tool: string, server: string | null, err: RouterError, argsDigest: string | null): FailedCall {
  return { kind: 'failed', answer: failureAnswer(tool, server, err), code: err.code, argsDigest };
}

/** A call whose fields broke a rule: `invalid_call`, under the name it gave when that is a string. */
export function invalidCall(raw: unknown, message: string): FailedCall {
  return failedCall(nameOf(raw), null, new RouterError('invalid_call', message), null);
}

/** The `name` a malformed call gave, for its answer only: a string cut to 200 characters, else empty. */
export function nameOf(raw: unknown): string {
  const name = isJsonObject(raw) ? raw.name : undefined;
  return typeof name === 'string' ? name.slice(0, 200) : '';
}

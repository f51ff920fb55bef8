import { ErrorCode, JSONRPC_VERSION, RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';

export type RequestId = string | number;

/** What one POSTed body turned out to be. */
export type Incoming =
  | { kind: 'request'; id: RequestId; method: string; params: Record<string, unknown> }
  | { kind: 'notification'; method: string }
  | { kind: 'response' }
  | { kind: 'invalid'; id: RequestId | null; code: ErrorCode.ParseError | ErrorCode.InvalidRequest; message: string };

const MAX_ID_CHARS = 256;
/** Deepest JSON nesting a message may have; real MCP messages stay far below it. */
export const MAX_JSON_DEPTH = 64;

/**
 * True when the JSON text nests objects and arrays deeper than `limit`. One pass over the text
 * (brackets inside strings do not count), so a 10,000-level body is refused before it is parsed
 * into 10,000 objects and walked by every validator after.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * Classifies a POSTed body as the SDK's own message schemas would (`JSONRPCRequestSchema`,
 * `JSONRPCNotificationSchema`), with plain checks instead of zod: only the kind of message matters
 * here, and zod's `safeParse` was the largest cost of this function (issue #5, BENCHMARKS item 6).
 * The spec pins the two to the same verdicts. JSON-RPC batch arrays are refused: the 2025-06-18
 * revision of the MCP transport removed them, and one body then stays one answer.
 */
export function parseIncoming(body: string): Incoming {
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
    return { kind: 'invalid', id: null, code: ErrorCode.InvalidRequest, message: `Invalid Request: JSON nested deeper than ${MAX_JSON_DEPTH} levels` };
  }
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return { kind: 'invalid', id: null, code: ErrorCode.ParseError, message: 'Parse error: the body is not valid JSON' };
  }
  if (Array.isArray(message)) {
    return { kind: 'invalid', id: null, code: ErrorCode.InvalidRequest, message: 'Invalid Request: JSON-RPC batch arrays are not supported' };
  }
  if (message === null || typeof message !== 'object') {
    return { kind: 'invalid', id: null, code: ErrorCode.InvalidRequest, message: 'Invalid Request: not a JSON-RPC message' };
  }
  const fields = message as Record<string, unknown>;
  const id = validId(fields.id);
  if ('id' in fields && id === null) {
    return {
      kind: 'invalid',
      id: null,
      code: ErrorCode.InvalidRequest,
      message: `Invalid Request: id must be a string of at most ${MAX_ID_CHARS} characters or a safe integer`,
    };
  }
  const { method } = fields;
  if (id !== null && typeof method === 'string') {
    if (!isWellFormed(fields, REQUEST_FIELDS)) return { kind: 'invalid', id, code: ErrorCode.InvalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 request' };
    return { kind: 'request', id, method, params: (fields.params ?? {}) as Record<string, unknown> };
  }
  if (id === null && typeof method === 'string') {
    if (!isWellFormed(fields, NOTIFICATION_FIELDS)) return { kind: 'invalid', id: null, code: ErrorCode.InvalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 notification' };
    return { kind: 'notification', method };
  }
  if (id !== null && fields.jsonrpc === '2.0' && ('result' in fields || 'error' in fields)) return { kind: 'response' };
  return { kind: 'invalid', id, code: ErrorCode.InvalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 message' };
}

const REQUEST_FIELDS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);
const NOTIFICATION_FIELDS: ReadonlySet<string> = new Set(['jsonrpc', 'method', 'params']);

/**
 * What the SDK's strict request and notification schemas check beyond `id` and `method` (which the
 * caller has checked): `jsonrpc: "2.0"`, no other top-level field, and `params`, when present, an
 * object whose `_meta`, when present, is an object with a well-typed `progressToken` and related
 * task. Other params fields are the method's to judge.
 */
function isWellFormed(fields: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  if (fields.jsonrpc !== JSONRPC_VERSION) return false;
  for (const key of Object.keys(fields)) if (!allowed.has(key)) return false;
  const { params } = fields;
  if (params === undefined) return true;
  if (!isRecord(params)) return false;
  const meta = params._meta;
  if (meta === undefined) return true;
  if (!isRecord(meta)) return false;
  const token = meta.progressToken;
  if (token !== undefined && typeof token !== 'string' && !(typeof token === 'number' && Number.isSafeInteger(token))) return false;
  const related = meta[RELATED_TASK_META_KEY];
  return related === undefined || (isRecord(related) && typeof related.taskId === 'string');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function validId(id: unknown): RequestId | null {
  if (typeof id === 'string' && id.length <= MAX_ID_CHARS) return id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return id;
  return null;
}

export function resultMessage(id: RequestId, result: unknown): unknown {
  return { jsonrpc: '2.0', id, result };
}

/**
 * `resultMessage` as JSON text, for a result already serialized: the same bytes as
 * `JSON.stringify(resultMessage(id, JSON.parse(resultJson)))`, without serializing the result again.
 */
export function resultMessageJson(id: RequestId, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;
}

export function errorMessage(id: RequestId | null, code: number, message: string, data?: unknown): unknown {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}

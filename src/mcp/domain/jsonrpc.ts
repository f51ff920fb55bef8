import { ErrorCode, JSONRPC_VERSION, RELATED_TASK_META_KEY } from '@modelcontextprotocol/sdk/types.js';
import { isJsonObject, type JsonObject } from '../../common/json-object';

export type RequestId = string | number;

/**
 * A request's `params` once the envelope is checked: an object whose `_meta`, when present, is an
 * object too. Every other field is the method's to judge.
 */
export interface RequestParams {
  readonly [field: string]: unknown;
  readonly _meta?: JsonObject;
}

/** What one POSTed body turned out to be. */
export type Incoming =
  | { kind: 'request'; id: RequestId; method: string; params: RequestParams }
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
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
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
 * `JSONRPCNotificationSchema`), with plain checks instead of zod: it runs on every request, and
 * zod's `safeParse` was the largest cost of this function (BENCHMARKS.md, item 6). The spec pins
 * the two to the same verdicts over several hundred shapes; what passes comes out typed
 * (`RequestParams`). JSON-RPC batch arrays are refused: the 2025-06-18 revision of the MCP
 * transport removed them, and one body then stays one answer.
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
  if (!isJsonObject(message)) {
    return { kind: 'invalid', id: null, code: ErrorCode.InvalidRequest, message: 'Invalid Request: not a JSON-RPC message' };
  }
  const id = validId(message.id);
  if ('id' in message && id === null) {
    return {
      kind: 'invalid',
      id: null,
      code: ErrorCode.InvalidRequest,
      message: `Invalid Request: id must be a string of at most ${MAX_ID_CHARS} characters or a safe integer`,
    };
  }
  const { method } = message;
  if (id !== null && typeof method === 'string') {
    const params = wellFormedParams(message, REQUEST_FIELDS);
    if (params === undefined) return { kind: 'invalid', id, code: ErrorCode.InvalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 request' };
    return { kind: 'request', id, method, params };
  }
  if (id === null && typeof method === 'string') {
    if (wellFormedParams(message, NOTIFICATION_FIELDS) === undefined)
      return { kind: 'invalid', id: null, code: ErrorCode.InvalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 notification' };
    return { kind: 'notification', method };
  }
  if (id !== null && message.jsonrpc === '2.0' && ('result' in message || 'error' in message)) return { kind: 'response' };
  return { kind: 'invalid', id, code: ErrorCode.InvalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 message' };
}

const REQUEST_FIELDS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);
const NOTIFICATION_FIELDS: ReadonlySet<string> = new Set(['jsonrpc', 'method', 'params']);

/**
 * What the SDK's strict request and notification schemas check beyond `id` and `method` (which the
 * caller has checked): `jsonrpc: "2.0"`, no other top-level field, and `params`, when present, an
 * object whose `_meta`, when present, is an object with a well-typed `progressToken` and related
 * task. The params when all holds (a fresh empty object for none), else undefined.
 */
function wellFormedParams(fields: JsonObject, allowed: ReadonlySet<string>): RequestParams | undefined {
  if (fields.jsonrpc !== JSONRPC_VERSION) return undefined;
  for (const key of Object.keys(fields)) if (!allowed.has(key)) return undefined;
  const { params } = fields;
  if (params === undefined) return {};
  return isJsonObject(params) && isRequestParams(params) ? params : undefined;
}

function isRequestParams(params: JsonObject): params is RequestParams {
  const meta = params._meta;
  if (meta === undefined) return true;
  if (!isJsonObject(meta)) return false;
  const token = meta.progressToken;
  if (token !== undefined && typeof token !== 'string' && !(typeof token === 'number' && Number.isSafeInteger(token))) return false;
  const related = meta[RELATED_TASK_META_KEY];
  return related === undefined || (isJsonObject(related) && typeof related.taskId === 'string');
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

import { ErrorCode, JSONRPCNotificationSchema, JSONRPCRequestSchema } from '@modelcontextprotocol/sdk/types.js';

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
 * Classifies a POSTed body with the SDK's own message schemas. JSON-RPC batch arrays are refused:
 * the 2025-06-18 revision of the MCP transport removed them, and one body then stays one answer.
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
  if (id !== null && typeof fields.method === 'string') {
    const parsed = JSONRPCRequestSchema.safeParse(message);
    if (!parsed.success) return { kind: 'invalid', id, code: ErrorCode.InvalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 request' };
    return { kind: 'request', id, method: parsed.data.method, params: (parsed.data.params ?? {}) as Record<string, unknown> };
  }
  if (id === null && typeof fields.method === 'string') {
    const parsed = JSONRPCNotificationSchema.safeParse(message);
    if (!parsed.success) return { kind: 'invalid', id: null, code: ErrorCode.InvalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 notification' };
    return { kind: 'notification', method: parsed.data.method };
  }
  if (id !== null && fields.jsonrpc === '2.0' && ('result' in fields || 'error' in fields)) return { kind: 'response' };
  return { kind: 'invalid', id, code: ErrorCode.InvalidRequest, message: 'Invalid Request: not a JSON-RPC 2.0 message' };
}

function validId(id: unknown): RequestId | null {
  if (typeof id === 'string' && id.length <= MAX_ID_CHARS) return id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return id;
  return null;
}

export function resultMessage(id: RequestId, result: unknown): unknown {
  return { jsonrpc: '2.0', id, result };
}

export function errorMessage(id: RequestId | null, code: number, message: string): unknown {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

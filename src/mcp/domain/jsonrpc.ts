import { ErrorCode, JSONRPCNotificationSchema, JSONRPCRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export type RequestId = string | number;

/** What one POSTed body turned out to be. */
export type Incoming =
  | { kind: 'request'; id: RequestId; method: string; params: Record<string, unknown> }
  | { kind: 'notification'; method: string }
  | { kind: 'response' }
  | { kind: 'invalid'; id: RequestId | null; code: ErrorCode.ParseError | ErrorCode.InvalidRequest; message: string };

const MAX_ID_CHARS = 256;

/**
 * Classifies a POSTed body with the SDK's own message schemas. JSON-RPC batch arrays are refused:
 * the 2025-06-18 revision of the MCP transport removed them, and one body then stays one answer.
 */
export function parseIncoming(body: string): Incoming {
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

import { assertNever } from '../common/assert-never';

/** Failures at the HTTP edge of /mcp, before any MCP method runs. */
export type EdgeErrorCode = 'forbidden_origin' | 'forbidden_host' | 'method_not_allowed';

export class EdgeError extends Error {
  constructor(
    readonly code: EdgeErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'EdgeError';
  }
}

/** The HTTP status of an edge failure; a new code fails to compile until it is mapped. */
export function httpStatusOf(code: EdgeErrorCode): number {
  switch (code) {
    case 'forbidden_origin':
    case 'forbidden_host':
      return 403;
    case 'method_not_allowed':
      return 405;
    default:
      return assertNever(code);
  }
}

/** The answer to an edge failure: its status and a JSON-RPC error body a client can read. */
export function edgeErrorAnswer(error: EdgeError): { status: number; headers: Record<string, string>; body: unknown } {
  return {
    status: httpStatusOf(error.code),
    headers: error.code === 'method_not_allowed' ? { allow: 'POST' } : {},
    body: { jsonrpc: '2.0', id: null, error: { code: -32000, message: error.message } },
  };
}

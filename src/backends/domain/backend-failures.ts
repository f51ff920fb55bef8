import { RouterError } from '../../common/router-error';

/**
 * The failures a backend call can end in, each with its one message. Messages name the backend
 * and the kind of failure only: a backend's own text may echo the arguments (architecture §5).
 */
export const backendFailure = {
  timedOut: (backend: string, timeoutMs: number) => new RouterError('backend_timeout', `backend ${backend} did not answer within ${timeoutMs} ms`),
  tooLarge: (backend: string) => new RouterError('response_too_large', `backend ${backend} sent a response over the size limit`),
  jsonRpcError: (backend: string, code: number) => new RouterError('backend_failed', `backend ${backend} answered with JSON-RPC error ${code}`),
  malformed: (backend: string) => new RouterError('backend_failed', `backend ${backend} sent a malformed result`),
  notConnected: (backend: string) => new RouterError('backend_unavailable', `backend ${backend} is not connected`),
} as const;

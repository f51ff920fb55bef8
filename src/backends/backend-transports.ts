import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { assertNever } from '../common/assert-never';
import type { BackendConfig } from '../config/config.types';
import { DEFAULT_MAX_LINE_BYTES, StdioProcessTransport } from './stdio-process.transport';

/** A POST response body over the cap: fails that call only (the cap stdio lines have too). */
export class ResponseTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`backend response over ${limitBytes} bytes`);
    this.name = 'ResponseTooLargeError';
  }
}

/**
 * The fetch every HTTP and SSE backend uses.
 * - Backend URLs come only from config (issue #6): a redirect is refused rather than followed, so
 *   a compromised or misconfigured backend cannot send the router, with its configured
 *   credentials, to another host.
 * - A POST's response (one call's answer) is capped like a stdio line: a 12 MiB answer fails its
 *   own call while it streams in, instead of being buffered and parsed whole on the event loop.
 *   The long-lived GET event stream is not capped: it carries many messages over time.
 * - Each POST gets a signal of its own, aborted `requestTimeoutMs` after it started or when the
 *   transport's signal aborts. The SDK passes one long-lived signal to every fetch and never aborts
 *   a timed-out call's request: undici would keep that socket for minutes, and add a listener to
 *   the long-lived signal on every call (a leak, and a list walked on every call).
 */
export function guardedFetch(maxResponseBytes: number = DEFAULT_MAX_LINE_BYTES, requestTimeoutMs = 60_000): FetchLike {
  return async (url, init) => {
    if (init?.method !== 'POST') return refuseRedirect(await fetch(url, { ...init, redirect: 'manual' }));
    const request = new AbortController();
    const outer = init.signal ?? undefined;
    const abort = () => request.abort(outer?.reason);
    const timer = setTimeout(() => request.abort(new Error(`backend request over ${requestTimeoutMs} ms`)), requestTimeoutMs);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', abort);
    };
    if (outer?.aborted) request.abort(outer.reason);
    else outer?.addEventListener('abort', abort, { once: true });
    let response: Response;
    try {
      response = refuseRedirect(await fetch(url, { ...init, signal: request.signal, redirect: 'manual' }));
    } catch (err) {
      done();
      throw err;
    }
    if (response.body === null) {
      done();
      return response;
    }
    if (Number(response.headers.get('content-length') ?? 0) > maxResponseBytes) {
      done();
      await response.body.cancel();
      throw new ResponseTooLargeError(maxResponseBytes);
    }
    let seen = 0;
    const capped = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen <= maxResponseBytes) return controller.enqueue(chunk);
          done();
          controller.error(new ResponseTooLargeError(maxResponseBytes));
        },
        flush: done,
      }),
    );
    return new Response(capped, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function refuseRedirect(response: Response): Response {
  if (response.status >= 300 && response.status < 400) {
    void response.body?.cancel();
    throw new Error(`backend answered a redirect (${response.status}); redirects are not followed`);
  }
  return response;
}

/** A backend's fetch: its requests outlive its call timeout by a second at most. */
function backendFetch(config: BackendConfig): FetchLike {
  return guardedFetch(DEFAULT_MAX_LINE_BYTES, config.timeoutMs + 1_000);
}

/** A fresh transport for one connection attempt; transports are never reused across attempts. */
export function createTransport(config: BackendConfig): Transport {
  switch (config.transport) {
    case 'stdio':
      return new StdioProcessTransport({
        name: config.name,
        command: config.command,
        args: config.args,
        // Exactly the configured env: the router's own secrets never leak into a backend.
        env: { ...config.inheritedEnv, ...config.env },
        cwd: config.cwd,
      });
    case 'http':
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers }, fetch: backendFetch(config) });
    case 'sse':
      // requestInit headers also go on the GET that opens the event stream (SDK sse.js).
      return new SSEClientTransport(new URL(config.url), { requestInit: { headers: config.headers }, fetch: backendFetch(config) });
    default:
      return assertNever(config);
  }
}

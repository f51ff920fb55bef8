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
 */
export function guardedFetch(maxResponseBytes: number = DEFAULT_MAX_LINE_BYTES): FetchLike {
  return async (url, init) => {
    const response = await fetch(url, { ...init, redirect: 'manual' });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      throw new Error(`backend answered a redirect (${response.status}); redirects are not followed`);
    }
    if (init?.method !== 'POST' || response.body === null) return response;
    if (Number(response.headers.get('content-length') ?? 0) > maxResponseBytes) {
      await response.body.cancel();
      throw new ResponseTooLargeError(maxResponseBytes);
    }
    let seen = 0;
    const capped = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > maxResponseBytes) controller.error(new ResponseTooLargeError(maxResponseBytes));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(capped, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Exported for tests; every transport below uses it. */
export const fetchWithoutRedirects: FetchLike = guardedFetch();

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
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers }, fetch: fetchWithoutRedirects });
    case 'sse':
      // requestInit headers also go on the GET that opens the event stream (SDK sse.js).
      return new SSEClientTransport(new URL(config.url), { requestInit: { headers: config.headers }, fetch: fetchWithoutRedirects });
    default:
      return assertNever(config);
  }
}

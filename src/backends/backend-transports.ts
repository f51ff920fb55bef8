import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { assertNever } from '../common/assert-never';
import type { BackendConfig } from '../config/config.types';
import { StdioProcessTransport } from './stdio-process.transport';

/**
 * Backend URLs come only from config (issue #6): a redirect is refused rather than followed, so a
 * compromised or misconfigured backend cannot send the router, with its configured credentials,
 * to another host.
 */
export const fetchWithoutRedirects: FetchLike = async (url, init) => {
  const response = await fetch(url, { ...init, redirect: 'manual' });
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw new Error(`backend answered a redirect (${response.status}); redirects are not followed`);
  }
  return response;
};

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

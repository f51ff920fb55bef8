import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { assertNever } from '../common/assert-never';
import type { BackendConfig } from '../config/config.types';
import { StdioProcessTransport } from './stdio-process.transport';

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
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    case 'sse':
      // requestInit headers also go on the GET that opens the event stream (SDK sse.js).
      return new SSEClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    default:
      return assertNever(config);
  }
}

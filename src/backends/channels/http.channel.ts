import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { HttpBackendConfig } from '../../config/config.types';
import type { BackendToolResult } from '../backends.types';
import { describeFailure, toRouterError } from '../domain/backend-failures';
import { MAX_RESPONSE_BYTES, REQUEST_SLACK_MS, TERMINATE_SESSION_MS } from '../domain/limits';
import { HttpCallClient } from '../protocol/http-call-client';
import { guardedFetch } from '../transports/remote-transport';
import type { ChannelCall, ChannelCloseReason, ChannelEvents } from './backend-channel';
import { LegacySdkChannel } from './legacy-sdk.channel';
import { reportRequestFailure, reportTransportError } from './transport-errors';

/**
 * A Streamable HTTP backend of the 2025 eras (spec "Transports › Streamable HTTP"). The SDK
 * transport runs the session: `initialize`, `tools/list`, notifications on the GET stream; calls
 * take the pooled `node:http` client with the session id and protocol version the SDK transport
 * agreed (BENCHMARKS.md item 1).
 */
export class HttpChannel extends LegacySdkChannel {
  readonly pid = undefined;
  private readonly transport: StreamableHTTPClientTransport;
  private readonly calls: HttpCallClient;

  constructor(config: HttpBackendConfig, events: ChannelEvents) {
    const url = new URL(config.url);
    const fetch = guardedFetch(MAX_RESPONSE_BYTES, config.timeoutMs + REQUEST_SLACK_MS);
    const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: config.headers }, fetch });
    super(config, events, transport);
    this.transport = transport;
    this.calls = new HttpCallClient({ backend: config.name, url, headers: config.headers, maxResponseBytes: MAX_RESPONSE_BYTES });
  }

  call({ tool, arguments: args, timeoutMs, trace }: ChannelCall): Promise<BackendToolResult> {
    const session = { sessionId: this.transport.sessionId, protocolVersion: this.transport.protocolVersion };
    const failed = (err: unknown): never => {
      reportRequestFailure(err, this.events);
      throw toRouterError(err, this.config.name, timeoutMs);
    };
    // Not async: one `then` on the call's own promise, rather than a promise more and its turns.
    try {
      return this.calls.callTool(session, tool, args, timeoutMs, undefined, trace).then(undefined, failed);
    } catch (err) {
      return Promise.reject(err).then(undefined, failed);
    }
  }

  override async close(reason: ChannelCloseReason): Promise<void> {
    if (reason === 'shutdown' && this.transport.sessionId && !this.closed) {
      // Spec: a client that no longer needs a session SHOULD DELETE it, so the server can free it.
      await withTimeout(this.transport.terminateSession(), TERMINATE_SESSION_MS).catch((err: unknown) =>
        this.logger.debug({ msg: 'session termination failed', backend: this.config.name, detail: describeFailure(err) }),
      );
    }
    this.calls.close();
    await super.close(reason);
  }

  protected closeReason(): string {
    return 'connection closed';
  }

  protected transportError(err: Error): void {
    reportTransportError(err, this.events, this.logger, this.config.name);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

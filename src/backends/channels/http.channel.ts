import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Logger } from '@nestjs/common';
import type { HttpBackendConfig } from '../../config/config.types';
import type { BackendToolResult } from '../backends.types';
import { ConnectionBrokeError, ConnectionLostError, describeFailure, toRouterError } from '../domain/backend-failures';
import { MAX_RESPONSE_BYTES, REQUEST_SLACK_MS, TERMINATE_SESSION_MS } from '../domain/limits';
import type { BackendChannel, ChannelCall, ChannelCloseReason, ChannelEvents } from './backend-channel';
import { HttpCallClient } from './http-call-client';
import { guardedFetch, reportTransportError } from './remote-transport';
import { listAllTools, newSdkClient } from './sdk-client';

/**
 * A Streamable HTTP backend (spec "Transports › Streamable HTTP"). The SDK transport runs the
 * session: `initialize`, `tools/list`, notifications on the GET stream; calls take the pooled
 * `node:http` client with the session id and protocol version the SDK transport agreed
 * (BENCHMARKS.md item 1).
 */
export class HttpChannel implements BackendChannel {
  readonly pid = undefined;
  readonly era = 'legacy' as const;
  private readonly logger = new Logger(HttpChannel.name);
  private readonly transport: StreamableHTTPClientTransport;
  private readonly client: Client;
  private readonly calls: HttpCallClient;
  private closed = false;

  constructor(
    private readonly config: HttpBackendConfig,
    private readonly events: ChannelEvents,
  ) {
    const url = new URL(config.url);
    const fetch = guardedFetch(MAX_RESPONSE_BYTES, config.timeoutMs + REQUEST_SLACK_MS);
    this.transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: config.headers }, fetch });
    this.calls = new HttpCallClient({ backend: config.name, url, headers: config.headers, maxResponseBytes: MAX_RESPONSE_BYTES });
    this.client = newSdkClient(events);
    this.client.onclose = () => {
      this.closed = true;
      events.onClose('connection closed');
    };
    this.client.onerror = (err) => reportTransportError(err, events, this.logger, config.name);
  }

  connect(timeoutMs: number): Promise<void> {
    return this.client.connect(this.transport, { timeout: timeoutMs });
  }

  listTools(pageTimeoutMs: () => number): Promise<Tool[]> {
    return listAllTools(this.client, pageTimeoutMs);
  }

  async call({ tool, arguments: args, timeoutMs }: ChannelCall): Promise<BackendToolResult> {
    const session = { sessionId: this.transport.sessionId, protocolVersion: this.transport.protocolVersion };
    try {
      return await this.calls.callTool(session, tool, args, timeoutMs);
    } catch (err) {
      // Streamable HTTP has no other sign of a dead backend than its requests failing.
      if (err instanceof ConnectionLostError) this.events.onLost(err.message);
      // A socket that broke mid-answer: a crashed backend and one dropped connection look the same.
      else if (err instanceof ConnectionBrokeError) this.events.onSuspect();
      throw toRouterError(err, this.config.name, timeoutMs);
    }
  }

  async ping(timeoutMs: number): Promise<void> {
    await this.client.ping({ timeout: timeoutMs });
  }

  async close(reason: ChannelCloseReason): Promise<void> {
    if (reason === 'shutdown' && this.transport.sessionId && !this.closed) {
      // Spec: a client that no longer needs a session SHOULD DELETE it, so the server can free it.
      await withTimeout(this.transport.terminateSession(), TERMINATE_SESSION_MS).catch((err: unknown) =>
        this.logger.debug({ msg: 'session termination failed', backend: this.config.name, detail: describeFailure(err) }),
      );
    }
    this.calls.close();
    await this.client.close().catch((err: unknown) => this.logger.debug({ msg: 'close failed', backend: this.config.name, detail: describeFailure(err) }));
  }

  kill(): void {
    // Nothing runs on this machine: closing the sockets is all there is, and exit does that.
  }

  describeFailure(err: unknown): string {
    return describeFailure(err);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

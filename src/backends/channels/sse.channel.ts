import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { ResultSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { Logger } from '@nestjs/common';
import type { HttpBackendConfig } from '../../config/config.types';
import type { BackendToolResult } from '../backends.types';
import { backendFailure, describeFailure, toRouterError } from '../domain/backend-failures';
import { toCallResult } from '../domain/call-answer';
import { MAX_RESPONSE_BYTES, REQUEST_SLACK_MS } from '../domain/limits';
import type { BackendChannel, ChannelCall, ChannelCloseReason, ChannelEvents } from './backend-channel';
import { guardedFetch, reportTransportError } from './remote-transport';
import { listAllTools, newSdkClient } from './sdk-client';

/**
 * A legacy HTTP+SSE backend (spec 2024-11-05 "HTTP with SSE"): answers arrive on the event stream,
 * which only the SDK transport reads, so calls go through the SDK client's request (its deadline
 * sends `notifications/cancelled`); the result is read by the one answer validator
 * (`domain/call-answer`), not the SDK's schema, so every channel accepts the same answers.
 */
export class SseChannel implements BackendChannel {
  readonly pid = undefined;
  readonly era = 'legacy' as const;
  private readonly logger = new Logger(SseChannel.name);
  private readonly transport: SSEClientTransport;
  private readonly client: Client;

  constructor(
    private readonly config: HttpBackendConfig,
    events: ChannelEvents,
  ) {
    const fetch = guardedFetch(MAX_RESPONSE_BYTES, config.timeoutMs + REQUEST_SLACK_MS);
    // requestInit headers also go on the GET that opens the event stream (SDK sse.js).
    this.transport = new SSEClientTransport(new URL(config.url), { requestInit: { headers: config.headers }, fetch });
    this.client = newSdkClient(events);
    this.client.onclose = () => events.onClose('connection closed');
    this.client.onerror = (err) => reportTransportError(err, events, this.logger, config.name);
  }

  connect(timeoutMs: number): Promise<void> {
    return this.client.connect(this.transport, { timeout: timeoutMs });
  }

  listTools(pageTimeoutMs: () => number): Promise<Tool[]> {
    return listAllTools(this.client, pageTimeoutMs);
  }

  async call({ tool, arguments: args, timeoutMs }: ChannelCall): Promise<BackendToolResult> {
    let result: unknown;
    try {
      result = await this.client.request({ method: 'tools/call', params: { name: tool, arguments: args } }, ResultSchema, { timeout: timeoutMs });
    } catch (err) {
      throw toRouterError(err, this.config.name, timeoutMs);
    }
    const relayed = toCallResult(result);
    if (!relayed) throw backendFailure.malformed(this.config.name);
    return relayed;
  }

  async ping(timeoutMs: number): Promise<void> {
    await this.client.ping({ timeout: timeoutMs });
  }

  async close(_reason: ChannelCloseReason): Promise<void> {
    await this.client.close().catch((err: unknown) => this.logger.debug({ msg: 'close failed', backend: this.config.name, detail: describeFailure(err) }));
  }

  kill(): void {
    // Nothing runs on this machine.
  }

  describeFailure(err: unknown): string {
    return describeFailure(err);
  }
}

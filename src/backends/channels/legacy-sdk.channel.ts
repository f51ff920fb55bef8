import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { Logger } from '@nestjs/common';
import type { BackendConfig } from '../../config/config.types';
import type { BackendToolResult } from '../backends.types';
import { describeFailure } from '../domain/backend-failures';
import type { ListedTool } from '../domain/catalog';
import { CLIENT_INFO } from '../domain/limits';
import { collectToolPages } from '../domain/tool-pages';
import { NO_OFFERINGS, type OfferingCapabilities } from '../../registry/domain/offerings';
import type { BackendChannel, ChannelCall, ChannelCloseReason, ChannelEvents, OfferingRequest } from './backend-channel';

/**
 * What every 2025-era channel (stdio, Streamable HTTP, HTTP+SSE) does the same way: an SDK client
 * beside its own call path runs the handshake (`initialize`), `tools/list` and `ping`, and receives
 * notifications. Calls on stdio and Streamable HTTP never go through it (BENCHMARKS.md items 1 and
 * 6); a legacy SSE backend answers on its event stream, which only the SDK transport reads. Each
 * channel supplies its SDK transport, its call path, and what its transport's close and errors say.
 */
export abstract class LegacySdkChannel implements BackendChannel {
  readonly era = 'legacy' as const;
  abstract readonly pid: number | undefined;
  /** Named after the channel's own class, as each had its own logger. */
  protected readonly logger = new Logger(this.constructor.name);
  protected readonly client: Client;
  /** The SDK client saw its transport close. */
  protected closed = false;

  constructor(
    protected readonly config: BackendConfig,
    protected readonly events: ChannelEvents,
    private readonly sdkTransport: Transport,
  ) {
    this.client = new Client(CLIENT_INFO, { capabilities: {} });
    this.client.setNotificationHandler(ToolListChangedNotificationSchema, () => events.onListChanged());
    this.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => events.onOfferingsChanged?.('resources'));
    this.client.setNotificationHandler(PromptListChangedNotificationSchema, () => events.onOfferingsChanged?.('prompts'));
    this.client.onclose = () => {
      this.closed = true;
      events.onClose(this.closeReason());
    };
    this.client.onerror = (err) => this.transportError(err);
  }

  abstract call(request: ChannelCall): Promise<BackendToolResult>;

  connect(timeoutMs: number): Promise<void> {
    return this.client.connect(this.sdkTransport, { timeout: timeoutMs });
  }

  /** `tools/list` through every page, each page bounded by `pageTimeoutMs()`. */
  listTools(pageTimeoutMs: () => number): Promise<ListedTool[]> {
    return collectToolPages(async (cursor) => this.client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: pageTimeoutMs() }));
  }

  offerings(): OfferingCapabilities {
    const declared = this.client.getServerCapabilities();
    return declared ? { resources: declared.resources !== undefined, prompts: declared.prompts !== undefined } : NO_OFFERINGS;
  }

  /** Through the SDK client, which validates each result by its schema. */
  async request(request: OfferingRequest, timeoutMs: number): Promise<Record<string, unknown>> {
    const options = { timeout: timeoutMs };
    switch (request.method) {
      case 'resources/list':
        return this.client.listResources(cursorParams(request.cursor), options);
      case 'resources/templates/list':
        return this.client.listResourceTemplates(cursorParams(request.cursor), options);
      case 'prompts/list':
        return this.client.listPrompts(cursorParams(request.cursor), options);
      case 'resources/read':
        return this.client.readResource({ uri: request.uri }, options);
      case 'prompts/get':
        return this.client.getPrompt({ name: request.name, arguments: request.arguments }, options);
    }
  }

  async ping(timeoutMs: number): Promise<void> {
    await this.client.ping({ timeout: timeoutMs });
  }

  async close(_reason: ChannelCloseReason): Promise<void> {
    await this.client.close().catch((err: unknown) => this.logger.debug({ msg: 'close failed', backend: this.config.name, detail: describeFailure(err) }));
  }

  kill(): void {
    // Nothing runs on this machine unless the channel says otherwise (stdio).
  }

  describeFailure(err: unknown): string {
    return describeFailure(err);
  }

  /** The one line `onClose` reports when the SDK client's transport closed. */
  protected abstract closeReason(): string;

  /** What an error of the SDK client's transport says about the connection. */
  protected abstract transportError(err: Error): void;
}

function cursorParams(cursor: string | undefined): { cursor: string } | undefined {
  return cursor === undefined ? undefined : { cursor };
}

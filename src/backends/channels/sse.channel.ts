import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { HttpBackendConfig } from '../../config/config.types';
import type { BackendToolResult } from '../backends.types';
import { backendFailure, toRouterError } from '../domain/backend-failures';
import { toCallResult } from '../domain/call-answer';
import { MAX_RESPONSE_BYTES, REQUEST_SLACK_MS } from '../domain/limits';
import { guardedFetch } from '../transports/remote-transport';
import type { ChannelCall, ChannelEvents } from './backend-channel';
import { LegacySdkChannel } from './legacy-sdk.channel';
import { reportTransportError } from './transport-errors';
import { traceFields } from '../domain/trace-meta';

/**
 * A legacy HTTP+SSE backend (spec 2024-11-05 "HTTP with SSE"): answers arrive on the event stream,
 * which only the SDK transport reads, so calls go through the SDK client's request (its deadline
 * sends `notifications/cancelled`); the result is read by the one answer validator
 * (`domain/call-answer`), not the SDK's schema, so every channel accepts the same answers.
 */
export class SseChannel extends LegacySdkChannel {
  readonly pid = undefined;

  constructor(config: HttpBackendConfig, events: ChannelEvents) {
    const fetch = guardedFetch(MAX_RESPONSE_BYTES, config.timeoutMs + REQUEST_SLACK_MS);
    // requestInit headers also go on the GET that opens the event stream (SDK sse.js).
    super(config, events, new SSEClientTransport(new URL(config.url), { requestInit: { headers: config.headers }, fetch }));
  }

  async call({ tool, arguments: args, timeoutMs, trace }: ChannelCall): Promise<BackendToolResult> {
    let result: unknown;
    // The SDK transport's headers are fixed per connection: the trace context travels in `_meta` only.
    const meta = traceFields(trace);
    const params = meta === undefined ? { name: tool, arguments: args } : { name: tool, arguments: args, _meta: meta };
    try {
      result = await this.client.request({ method: 'tools/call', params }, ResultSchema, { timeout: timeoutMs });
    } catch (err) {
      throw toRouterError(err, this.config.name, timeoutMs);
    }
    const relayed = toCallResult(result);
    if (!relayed) throw backendFailure.malformed(this.config.name);
    return relayed;
  }

  protected closeReason(): string {
    return 'connection closed';
  }

  protected transportError(err: Error): void {
    reportTransportError(err, this.events, this.logger, this.config.name);
  }
}

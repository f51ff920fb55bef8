import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type Tool, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLIENT_INFO } from '../domain/limits';
import { collectToolPages } from '../domain/tool-pages';
import type { ChannelEvents } from './backend-channel';

/**
 * The SDK client every 2025-era channel keeps beside its own call path: it runs the handshake
 * (`initialize`), `tools/list`, `ping` and receives notifications. Calls on stdio and Streamable
 * HTTP never go through it (BENCHMARKS.md items 1 and 6); a legacy SSE backend answers on its
 * event stream, which only the SDK transport reads.
 */
export function newSdkClient(events: ChannelEvents): Client {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => events.onListChanged());
  return client;
}

/** `tools/list` through every page, each page bounded by `pageTimeoutMs()`. */
export function listAllTools(client: Client, pageTimeoutMs: () => number): Promise<Tool[]> {
  return collectToolPages(async (cursor) => client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: pageTimeoutMs() }));
}

import { assertNever } from '../../common/assert-never';
import type { BackendConfig } from '../../config/config.types';
import type { BackendChannel, ChannelEvents } from './backend-channel';
import { HttpChannel } from './http.channel';
import { SseChannel } from './sse.channel';
import { StdioChannel } from './stdio.channel';

/**
 * A fresh channel for one connection attempt, by the backend's transport: the one place that
 * branches on it. Nothing is opened until `connect`; channels are never reused across attempts.
 */
export function openChannel(config: BackendConfig, events: ChannelEvents): BackendChannel {
  switch (config.transport) {
    case 'stdio':
      return new StdioChannel(config, events);
    case 'http':
      return new HttpChannel(config, events);
    case 'sse':
      return new SseChannel(config, events);
    default:
      return assertNever(config);
  }
}

import { assertNever } from '../../common/assert-never';
import type { BackendConfig, HttpBackendConfig, StdioBackendConfig } from '../../config/config.types';
import type { BackendChannel, ChannelEvents } from './backend-channel';
import { EraProbingChannel } from './era-probing.channel';
import { HttpChannel } from './http.channel';
import { ModernHttpChannel } from './modern-http.channel';
import { ModernStdioChannel } from './modern-stdio.channel';
import { SseChannel } from './sse.channel';
import { StdioChannel } from './stdio.channel';

/**
 * A fresh channel for one connection attempt, by the backend's transport: the one place that
 * branches on it. Nothing is opened until `connect`; channels are never reused across attempts.
 */
export function openChannel(config: BackendConfig, events: ChannelEvents): BackendChannel {
  switch (config.transport) {
    case 'stdio':
      return openStdioChannel(config, events);
    case 'http':
      return openHttpChannel(config, events);
    case 'sse':
      return new SseChannel(config, events);
    default:
      return assertNever(config);
  }
}

/**
 * stdio serves both eras too (spec 2026-07-28 stdio "Backward Compatibility"); an `auto` probe
 * that finds a 2025 server hands the same child on to `initialize`.
 */
function openStdioChannel(config: StdioBackendConfig, events: ChannelEvents): BackendChannel {
  const era = config.era ?? 'auto';
  switch (era) {
    case 'legacy':
      return new StdioChannel(config, events);
    case 'modern':
      return new ModernStdioChannel(config, events);
    case 'auto':
      return new EraProbingChannel(
        config.name,
        () => new ModernStdioChannel(config, events),
        (probed) => Promise.resolve(new StdioChannel(config, events, probed.handOver())),
      );
    default:
      return assertNever(era);
  }
}

/** Streamable HTTP serves both eras (docs/backend-eras.md); the era is config's or the probe's. */
function openHttpChannel(config: HttpBackendConfig, events: ChannelEvents): BackendChannel {
  const era = config.era ?? 'auto';
  switch (era) {
    case 'legacy':
      return new HttpChannel(config, events);
    case 'modern':
      return new ModernHttpChannel(config, events);
    case 'auto':
      return new EraProbingChannel(
        config.name,
        () => new ModernHttpChannel(config, events),
        async (probed) => {
          await probed.close();
          return new HttpChannel(config, events);
        },
      );
    default:
      return assertNever(era);
  }
}

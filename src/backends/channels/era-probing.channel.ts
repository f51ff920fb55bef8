import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { HttpBackendConfig } from '../../config/config.types';
import type { BackendToolResult } from '../backends.types';
import { backendFailure, describeFailure } from '../domain/backend-failures';
import type { BackendChannel, ChannelCall, ChannelCloseReason, ChannelEvents, ProtocolEra } from './backend-channel';
import { ModernHttpChannel } from './modern-http.channel';

/**
 * A Streamable HTTP backend of either era (`era: auto`, the default): `connect` sends the 2026
 * `server/discover` first and reads the answer as the spec's era probe (Streamable HTTP, "Backward
 * Compatibility"): a DiscoverResult or a modern error keeps the modern channel; anything else (a
 * 2025 server's "not initialized", 404, 405, a method-not-found) falls back to the 2025 channel
 * with `initialize`. The probe is redone on every connection attempt, so a backend upgraded in
 * place is met in its new era at the next reconnect (the spec lets a client cache the verdict; a
 * reconnect is exactly when the cached assumption may have failed).
 */
export class EraProbingChannel implements BackendChannel {
  readonly pid = undefined;
  private chosen: BackendChannel | undefined;
  private closed = false;

  constructor(
    private readonly config: HttpBackendConfig,
    private readonly events: ChannelEvents,
    private readonly openLegacy: () => BackendChannel,
  ) {}

  get era(): ProtocolEra | undefined {
    return this.chosen?.era;
  }

  async connect(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const modern = new ModernHttpChannel(this.config, this.events);
    let verdict;
    try {
      verdict = await modern.probe(timeoutMs);
    } catch (err) {
      await modern.close();
      throw err;
    }
    if (verdict.era === 'none') {
      await modern.close();
      throw new Error(verdict.reason);
    }
    if (this.closed) return void (await modern.close());
    if (verdict.era === 'modern') {
      this.chosen = modern;
      modern.afterConnect();
      return;
    }
    await modern.close();
    const legacy = this.openLegacy();
    this.chosen = legacy;
    await legacy.connect(Math.max(1, deadline - Date.now()));
  }

  listTools(pageTimeoutMs: () => number): Promise<Tool[]> {
    return this.inner().listTools(pageTimeoutMs);
  }

  call(request: ChannelCall): Promise<BackendToolResult> {
    if (!this.chosen) return Promise.reject(backendFailure.notConnected(this.config.name));
    return this.chosen.call(request);
  }

  ping(timeoutMs: number): Promise<void> {
    return this.inner().ping(timeoutMs);
  }

  async close(reason: ChannelCloseReason): Promise<void> {
    this.closed = true;
    await this.chosen?.close(reason);
  }

  kill(): void {
    this.chosen?.kill();
  }

  describeFailure(err: unknown): string {
    return this.chosen ? this.chosen.describeFailure(err) : describeFailure(err);
  }

  private inner(): BackendChannel {
    if (!this.chosen) throw new Error('channel not connected');
    return this.chosen;
  }
}

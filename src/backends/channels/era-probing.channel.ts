import type { BackendToolResult } from '../backends.types';
import { backendFailure, describeFailure } from '../domain/backend-failures';
import type { ListedTool } from '../domain/catalog';
import type { ProbeVerdict } from '../domain/modern-protocol';
import { NO_OFFERINGS, type OfferingCapabilities } from '../../registry/domain/offerings';
import type { BackendChannel, ChannelCall, ChannelCloseReason, OfferingRequest, ProtocolEra } from './backend-channel';

/** A modern channel that can also serve as the era probe of `era: auto`. */
export interface EraProbe extends BackendChannel {
  /** `server/discover` read as the spec's era probe; rejects only when the backend cannot be reached. */
  probe(timeoutMs: number): Promise<ProbeVerdict>;
  /** Finishes connecting once the probe said modern (opens the change subscription, if any). */
  afterConnect(): void;
}

/**
 * A backend of either era (`era: auto`, the default): `connect` sends the 2026 `server/discover`
 * first and reads the answer as the spec's era probe ("Backward Compatibility" of the Streamable
 * HTTP and stdio transports): a DiscoverResult or a modern error keeps the modern channel; anything
 * else (a 2025 server's "not initialized", 404, 405, a method-not-found, silence on stdio) falls
 * back to the 2025 channel with `initialize`. `openLegacy` receives the probe: over HTTP it closes
 * it and opens afresh; on stdio it takes over the probed child. The probe is redone on every
 * connection attempt, so a backend upgraded in place is met in its new era at the next reconnect
 * (the spec lets a client cache the verdict; a reconnect is exactly when the cached assumption may
 * have failed).
 */
export class EraProbingChannel<Probe extends EraProbe> implements BackendChannel {
  private probing: Probe | undefined;
  private chosen: BackendChannel | undefined;
  private closed = false;

  constructor(
    private readonly backend: string,
    private readonly openModern: () => Probe,
    private readonly openLegacy: (probed: Probe) => Promise<BackendChannel>,
  ) {}

  get era(): ProtocolEra | undefined {
    return this.chosen?.era;
  }

  get pid(): number | undefined {
    return (this.chosen ?? this.probing)?.pid;
  }

  async connect(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const modern = this.openModern();
    this.probing = modern;
    let verdict;
    try {
      verdict = await modern.probe(timeoutMs);
    } catch (err) {
      await modern.close('reconnect');
      throw err;
    }
    if (verdict.era === 'none') {
      await modern.close('reconnect');
      throw new Error(verdict.reason);
    }
    if (this.closed) return void (await modern.close('reconnect'));
    if (verdict.era === 'modern') {
      this.chosen = modern;
      modern.afterConnect();
      return;
    }
    const legacy = await this.openLegacy(modern);
    this.chosen = legacy;
    this.probing = undefined;
    await legacy.connect(Math.max(1, deadline - Date.now()));
  }

  listTools(pageTimeoutMs: () => number): Promise<ListedTool[]> {
    return this.inner().listTools(pageTimeoutMs);
  }

  call(request: ChannelCall): Promise<BackendToolResult> {
    if (!this.chosen) return Promise.reject(backendFailure.notConnected(this.backend));
    return this.chosen.call(request);
  }

  offerings(): OfferingCapabilities {
    return this.chosen?.offerings() ?? NO_OFFERINGS;
  }

  request(request: OfferingRequest, timeoutMs: number): Promise<Record<string, unknown>> {
    if (!this.chosen) return Promise.reject(backendFailure.notConnected(this.backend));
    return this.chosen.request(request, timeoutMs);
  }

  ping(timeoutMs: number): Promise<void> {
    return this.inner().ping(timeoutMs);
  }

  async close(reason: ChannelCloseReason): Promise<void> {
    this.closed = true;
    // A probe still running (a stdio child waiting for its first answer) is closed too.
    await (this.chosen ?? this.probing)?.close(reason);
  }

  kill(): void {
    (this.chosen ?? this.probing)?.kill();
  }

  describeFailure(err: unknown): string {
    const inner = this.chosen ?? this.probing;
    return inner ? inner.describeFailure(err) : describeFailure(err);
  }

  private inner(): BackendChannel {
    if (!this.chosen) throw new Error('channel not connected');
    return this.chosen;
  }
}

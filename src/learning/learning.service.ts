import { Inject, Injectable, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { CLOCK, type Clock } from '../common/clock';
import type { Principal } from '../common/principal';
import { DISCOVERY_CONFIG } from '../config/config.tokens';
import type { DiscoveryConfig, LearningConfig } from '../config/config.types';
import { RegistryService } from '../registry/registry.service';
import type { CatalogTool } from '../registry/registry.types';
import { TrustService } from '../trust/trust.service';
import { definitionOf, pinOf } from '../trust/domain/pin';
import { NO_SIGNAL, type AssociationView, type LearnedSignal, type Observation } from './domain/associations';
import { PendingFinds } from './domain/pending-finds';
import { LEARNING_STORE, type LearningStore } from './learning.store';

/** Decay is applied to the ranking's signal at least this often, even with nothing new learned. */
const DECAY_REBUILD_MS = 600_000;

/**
 * Learning from use (architecture §1.2): pairs each principal's `find_tool` request with the tool
 * it then calls successfully within the window, stores the request's normalized words against
 * that tool, and gives the ranking what enough principals taught. Off unless configured; then
 * every method is a no-op and the signal is empty.
 */
@Injectable()
export class LearningService implements OnModuleInit, OnApplicationShutdown {
  private readonly config: LearningConfig | undefined;
  private readonly pending: PendingFinds;
  private readonly digests = new WeakMap<CatalogTool, string>();
  private built: { signal: LearnedSignal; storeVersion: number; atMs: number } | undefined;
  /** Words recorded since the signal was built: only their part of it is worked out again. */
  private readonly recorded = new Set<string>();
  private pairs = 0;

  constructor(
    @Inject(DISCOVERY_CONFIG) discovery: DiscoveryConfig,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly registry: RegistryService,
    private readonly trust: TrustService,
    @Optional() @Inject(LEARNING_STORE) private readonly store: LearningStore | undefined,
  ) {
    this.config = discovery.learning;
    this.pending = new PendingFinds((this.config?.windowSeconds ?? 0) * 1000);
  }

  get enabled(): boolean {
    return this.config !== undefined && this.store !== undefined;
  }

  async onModuleInit(): Promise<void> {
    if (!this.enabled) return;
    await this.store?.open();
    // A tool whose definition changed loses what was learned for it, on every replica.
    this.registry.onCatalogReplaced((_backend, tools) => this.catalogReplaced(tools));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.store?.close();
  }

  /** A `find_tool` request's learned words (`learnedWords`), kept until its principal's next call. */
  found(principal: Principal, words: readonly string[]): void {
    if (!this.enabled || words.length === 0) return;
    this.pending.found(principalDigest(principal), words, this.clock.now());
  }

  /** A call that succeeded: paired with its principal's last `find_tool` within the window, if any. */
  called(principal: Principal, backend: string, name: string): void {
    const store = this.store;
    if (!this.enabled || store === undefined) return;
    const who = principalDigest(principal);
    const now = this.clock.now();
    const words = this.pending.take(who, now);
    if (words === undefined) return;
    const tool = this.registry.toolsOf(backend).find((t) => t.name === name);
    if (tool === undefined) return;
    const key = toolKey(backend, name);
    const definition = this.digestOf(tool);
    this.pairs += 1;
    const observations: Observation[] = words.map((word) => ({ word, tool: key, definition, principal: who, atMs: now }));
    void store.record(observations);
    for (const word of words) this.recorded.add(word);
  }

  /**
   * What the ranking reads now: the recorded words' part worked out again after each pair, the
   * whole rebuilt when the store changed otherwise (a reload, a reset) and for decay every ten
   * minutes.
   */
  signal(): LearnedSignal {
    const store = this.store;
    if (!this.enabled || store === undefined) return NO_SIGNAL;
    const now = this.clock.now();
    const built = this.built;
    if (built !== undefined && built.storeVersion === store.version && now - built.atMs < DECAY_REBUILD_MS) {
      if (this.recorded.size === 0) return built.signal;
      built.signal = store.associations.refresh(built.signal, this.recorded, now);
      this.recorded.clear();
      return built.signal;
    }
    this.recorded.clear();
    const signal = store.associations.signal(now, (built?.signal.version ?? 0) + 1);
    this.built = { signal, storeVersion: store.version, atMs: now };
    this.forgetQuarantined(signal);
    return this.built.signal;
  }

  /** Every association, for `learning list` and tests. */
  list(): AssociationView[] {
    return this.store?.associations.list(this.clock.now()) ?? [];
  }

  /** Pairs recorded since boot, and associations in use (the metrics). */
  counts(): { pairs: number; inUse: number } {
    return { pairs: this.pairs, inUse: this.enabled ? this.signal().size : 0 };
  }

  private catalogReplaced(tools: readonly CatalogTool[]): void {
    const store = this.store;
    if (store === undefined) return;
    const current = new Map(tools.map((t) => [toolKey(t.backend, t.name), t]));
    const changed = new Set(
      store.associations.changedTools((key) => {
        const tool = current.get(key);
        return tool === undefined ? undefined : this.digestOf(tool);
      }),
    );
    if (changed.size > 0) void store.forget((key) => changed.has(key));
  }

  /** A quarantined tool (trust `enforce`) loses what was learned for it. */
  private forgetQuarantined(signal: LearnedSignal): void {
    const store = this.store;
    if (store === undefined || signal.size === 0) return;
    const quarantined = new Set<string>();
    // Tools by key, one backend at a time as the signal names them: a signal holds tens of
    // thousands of associations, and looking each up in a catalog of 10,000 tools one by one took
    // seconds of the first find_tool after a rebuild.
    const byKey = new Map<string, CatalogTool>();
    const listed = new Set<string>();
    for (const tools of signal.byWord.values()) {
      for (const { tool: key } of tools) {
        const backend = key.slice(0, key.indexOf('\u0000'));
        if (!listed.has(backend)) {
          listed.add(backend);
          for (const tool of this.registry.toolsOf(backend)) byKey.set(toolKey(tool.backend, tool.name), tool);
        }
        const tool = byKey.get(key);
        if (tool !== undefined && this.trust.quarantineReason(tool) !== undefined) quarantined.add(key);
      }
    }
    if (quarantined.size > 0) void store.forget((key) => quarantined.has(key));
  }

  private digestOf(tool: CatalogTool): string {
    let digest = this.digests.get(tool);
    if (digest === undefined) {
      digest = pinOf(definitionOf(tool)).slice(0, 16);
      this.digests.set(tool, digest);
    }
    return digest;
  }
}

/** `backend NUL name`, as the ranking keys tools. */
export function toolKey(backend: string, name: string): string {
  return `${backend}\u0000${name}`;
}

/** A short one-way digest: distinct principals are counted without their ids being stored. */
function principalDigest(principal: Principal): string {
  return createHash('sha256').update(principal.id, 'utf8').digest('base64url').slice(0, 12);
}

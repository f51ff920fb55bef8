import { Logger } from '@nestjs/common';
import { OFFERING_KINDS, capabilityOf, type OfferingKind } from '../registry/domain/offerings';
import type { OfferingCatalog } from '../registry/offering-catalog.service';
import type { BackendChannel, OfferingRequest } from './channels/backend-channel';
import { CoalescingRunner } from './coalescing-runner';
import { collectToolPages } from './domain/tool-pages';

/** The listing request of each kind, and the field its result holds the entries in. */
const LISTINGS: Record<OfferingKind, { method: Extract<OfferingRequest, { cursor?: string }>['method']; field: string }> = {
  resources: { method: 'resources/list', field: 'resources' },
  templates: { method: 'resources/templates/list', field: 'resourceTemplates' },
  prompts: { method: 'prompts/list', field: 'prompts' },
};

/**
 * Keeps one backend's resources, resource templates and prompts in the offering catalog
 * (architecture §16): what its handshake declared, every page of each declared kind once it is up,
 * and each kind again when it announces `list_changed` (coalesced, as tool refreshes are). A
 * failed listing keeps the last one and is logged; it never takes the backend down, since its
 * tools work without it.
 */
export class OfferingSync {
  private readonly logger = new Logger(OfferingSync.name);
  private channel: BackendChannel | undefined;
  private readonly pending = new Set<OfferingKind>();
  private readonly runner: CoalescingRunner;

  constructor(
    private readonly backend: string,
    private readonly catalog: OfferingCatalog,
    private readonly timeoutMs: number,
    debounceMs: number,
  ) {
    this.runner = new CoalescingRunner(debounceMs, () => this.listPending(() => this.timeoutMs));
  }

  /**
   * A channel has connected: record what it declares and list every declared kind, each page
   * within `pageTimeoutMs()`. Resolves when done; a failed listing is logged, never thrown.
   */
  connected(channel: BackendChannel, pageTimeoutMs: () => number): Promise<void> {
    this.channel = channel;
    const declared = channel.offerings();
    this.catalog.setCapabilities(this.backend, declared);
    for (const kind of OFFERING_KINDS) if (declared[capabilityOf(kind)]) this.pending.add(kind);
    return this.pending.size > 0 ? this.listPending(pageTimeoutMs) : Promise.resolve();
  }

  /** The backend announced a change of `resources` (and so of its templates) or of `prompts`. */
  changed(kind: 'resources' | 'prompts'): void {
    if (kind === 'resources') {
      this.pending.add('resources');
      this.pending.add('templates');
    } else this.pending.add('prompts');
    this.runner.request();
  }

  /** The channel is gone: nothing is listed through it any more. */
  disconnected(): void {
    this.channel = undefined;
  }

  stop(): void {
    this.channel = undefined;
    this.runner.stop();
  }

  private async listPending(pageTimeoutMs: () => number): Promise<void> {
    const channel = this.channel;
    if (!channel) return;
    const kinds = [...this.pending].filter((kind) => this.catalog.declares(this.backend, kind));
    this.pending.clear();
    for (const kind of kinds) {
      const { method, field } = LISTINGS[kind];
      try {
        const entries = await collectToolPages(async (cursor) => {
          const page = await channel.request(cursor === undefined ? { method } : { method, cursor }, pageTimeoutMs());
          const items = page[field];
          const next = page.nextCursor;
          return { tools: Array.isArray(items) ? (items as unknown[]) : [], ...(typeof next === 'string' ? { nextCursor: next } : {}) };
        });
        if (this.channel !== channel) return;
        this.catalog.replace(this.backend, kind, entries);
      } catch (err) {
        if (this.channel !== channel) return;
        this.logger.warn({ msg: 'listing failed', backend: this.backend, method, error: channel.describeFailure(err) });
      }
    }
  }
}

import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { OfferingsService } from '../batch/offerings.service';
import type { Principal } from '../common/principal';
import type { ListKind } from './domain/list-subscription';
import { LifecycleService } from '../lifecycle/lifecycle.service';
import { DirectToolsService } from '../publish/direct-tools.service';
import { PublishedSurface } from './published-surface';

/** What a client's stream is told when one of its lists changed (MCP spec, "List Changed Notification"). */
export const LIST_CHANGED: Readonly<Record<ListKind, { jsonrpc: '2.0'; method: string }>> = {
  tools: { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
  resources: { jsonrpc: '2.0', method: 'notifications/resources/list_changed' },
  prompts: { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' },
};

/** One client that keeps a stream open, the lists it is told about, and what each was when last told. */
interface Listener {
  principal: Principal;
  fingerprints: Map<ListKind, string>;
  send(message: object): void;
  end(): void;
}

/**
 * List-change notifications for clients that keep a stream open (a 2025 client's GET /mcp, a
 * 2026-07-28 client's `subscriptions/listen`): `tools/list_changed` while tools are published per
 * caller (`publish.mode` `direct` or `both`), `resources/list_changed` and `prompts/list_changed`
 * once a backend's listing was listed again. After each change, each caller's list of that kind is
 * computed again and compared with what its stream last saw; only a caller whose list changed is
 * told, once per change however many backends changed in the same turn. Streams end when the
 * router starts draining, so they never hold a drain up.
 */
@Injectable()
export class ListChangeStreams implements OnModuleDestroy {
  private readonly logger = new Logger(ListChangeStreams.name);
  private readonly listeners = new Set<Listener>();
  private readonly pending = new Set<ListKind>();

  constructor(
    private readonly surface: PublishedSurface,
    private readonly offerings: OfferingsService,
    lifecycle: LifecycleService,
    direct: DirectToolsService,
  ) {
    direct.onChange(() => this.schedule('tools'));
    offerings.onChanged((kind) => this.schedule(kind === 'prompts' ? 'prompts' : 'resources'));
    lifecycle.onDraining(() => this.endAll());
  }

  /** How many streams are open. */
  get size(): number {
    return this.listeners.size;
  }

  /**
   * The lists that can change for `principal`, so that a stream has something to announce: its
   * tools while they are published per caller, resources and prompts while a backend it may use
   * declares them. Empty: no stream to keep (the spec's 405 for a GET, "Method not found" for a
   * subscription).
   */
  kindsFor(principal: Principal): ListKind[] {
    return [
      ...(this.surface.perCaller ? (['tools'] as const) : []),
      ...(this.offerings.declares('resources', principal) ? (['resources'] as const) : []),
      ...(this.offerings.declares('prompts', principal) ? (['prompts'] as const) : []),
    ];
  }

  /** Whether any caller could keep a stream: tools per caller, or a backend that declares resources or prompts. */
  get mayStream(): boolean {
    return this.surface.perCaller || this.offerings.anyDeclared();
  }

  /**
   * Keeps `send` informed of changes to `principal`'s lists of `kinds` until the returned function
   * is called (the client went away) or the router drains (then `end` is called).
   */
  open(principal: Principal, kinds: readonly ListKind[], send: (message: object) => void, end: () => void): () => void {
    const fingerprints = new Map(kinds.map((kind) => [kind, this.fingerprintOf(kind, principal)]));
    const listener: Listener = { principal, fingerprints, send, end };
    this.listeners.add(listener);
    this.logger.debug({ msg: 'list change stream opened', principal: principal.id, kinds, streams: this.listeners.size });
    return () => this.listeners.delete(listener);
  }

  onModuleDestroy(): void {
    this.endAll();
  }

  /** Ends every stream: once draining begins, and at shutdown. */
  private endAll(): void {
    const ending = [...this.listeners];
    this.listeners.clear();
    for (const listener of ending) listener.end();
  }

  /** Coalesces the changes of one turn (a backend's listeners run in the same turn). */
  private schedule(kind: ListKind): void {
    if (this.listeners.size === 0) return;
    const idle = this.pending.size === 0;
    this.pending.add(kind);
    if (!idle) return;
    // Outside the context of whatever request caused the change (a call that waited for a settle).
    setImmediate(() => {
      const kinds = [...this.pending];
      this.pending.clear();
      for (const kind of kinds) this.announce(kind);
    });
  }

  private announce(kind: ListKind): void {
    const byCaller = new Map<string, string>();
    for (const listener of this.listeners) {
      const before = listener.fingerprints.get(kind);
      if (before === undefined) continue;
      const key = JSON.stringify([listener.principal.id, listener.principal.groups]);
      let fingerprint = byCaller.get(key);
      if (fingerprint === undefined) {
        fingerprint = this.fingerprintOf(kind, listener.principal);
        byCaller.set(key, fingerprint);
      }
      if (fingerprint === before) continue;
      listener.fingerprints.set(kind, fingerprint);
      listener.send(LIST_CHANGED[kind]);
    }
  }

  /** A digest of the caller's whole list as sent: a changed description or schema is a change too. */
  private fingerprintOf(kind: ListKind, principal: Principal): string {
    const listed =
      kind === 'tools'
        ? this.surface.listFor(principal).tools
        : kind === 'prompts'
          ? this.offerings.listAll('prompts', principal)
          : [this.offerings.listAll('resources', principal), this.offerings.listAll('templates', principal)];
    return createHash('sha256').update(JSON.stringify(listed)).digest('base64url');
  }
}

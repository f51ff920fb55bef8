import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { Principal } from '../common/principal';
import { LifecycleService } from '../lifecycle/lifecycle.service';
import { DirectToolsService } from '../publish/direct-tools.service';
import { PublishedSurface } from './published-surface';

/** What a client's stream is told when its list changed (MCP spec, "Tools": List Changed Notification). */
export const TOOLS_LIST_CHANGED = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' } as const;

/** One client that keeps a stream open, and what its list was when last told. */
interface Listener {
  principal: Principal;
  fingerprint: string;
  send(message: object): void;
  end(): void;
}

/**
 * `notifications/tools/list_changed` for clients that keep a stream open (a 2025 client's GET
 * /mcp), while tools are published per caller (`publish.mode` `direct` or `both`). After each
 * catalog change, each caller's list is computed again and compared with what its stream last
 * saw; only a caller whose list changed is told, once per change however many backends changed
 * in the same turn. Streams end when the router starts draining, so they never hold a drain up.
 */
@Injectable()
export class ToolListStreams implements OnModuleDestroy {
  private readonly logger = new Logger(ToolListStreams.name);
  private readonly listeners = new Set<Listener>();
  private pending = false;

  constructor(
    private readonly surface: PublishedSurface,
    lifecycle: LifecycleService,
    direct: DirectToolsService,
  ) {
    direct.onChange(() => this.schedule());
    lifecycle.onDraining(() => this.endAll());
  }

  /** How many streams are open. */
  get size(): number {
    return this.listeners.size;
  }

  /** Whether a client may keep a stream: only a surface that can change has something to announce. */
  get enabled(): boolean {
    return this.surface.perCaller;
  }

  /**
   * Keeps `send` informed of changes to `principal`'s list until the returned function is called
   * (the client went away) or the router drains (then `end` is called).
   */
  open(principal: Principal, send: (message: object) => void, end: () => void): () => void {
    const listener: Listener = { principal, fingerprint: this.fingerprintOf(principal), send, end };
    this.listeners.add(listener);
    this.logger.debug({ msg: 'tool list stream opened', principal: principal.id, streams: this.listeners.size });
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

  /** Coalesces the catalog changes of one turn (a backend's listeners run in the same turn). */
  private schedule(): void {
    if (this.pending || this.listeners.size === 0) return;
    this.pending = true;
    // Outside the context of whatever request caused the change (a call that waited for a settle).
    setImmediate(() => {
      this.pending = false;
      this.announce();
    });
  }

  private announce(): void {
    const byCaller = new Map<string, string>();
    for (const listener of this.listeners) {
      const key = JSON.stringify([listener.principal.id, listener.principal.groups]);
      let fingerprint = byCaller.get(key);
      if (fingerprint === undefined) {
        fingerprint = this.fingerprintOf(listener.principal);
        byCaller.set(key, fingerprint);
      }
      if (fingerprint === listener.fingerprint) continue;
      listener.fingerprint = fingerprint;
      listener.send(TOOLS_LIST_CHANGED);
    }
  }

  /** A digest of the caller's whole list as sent: a changed description or schema is a change too. */
  private fingerprintOf(principal: Principal): string {
    return createHash('sha256')
      .update(JSON.stringify(this.surface.listFor(principal).tools))
      .digest('base64url');
  }
}

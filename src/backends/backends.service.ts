import { Inject, Injectable, Logger, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { CLOCK, type Clock, systemClock } from '../common/clock';
import { RouterError } from '../common/router-error';
import { BACKENDS_CONFIG } from '../config/config.tokens';
import type { BackendConfig } from '../config/config.types';
import { RegistryService } from '../registry/registry.service';
import { BackendConnection } from './backend-connection';
import type { BackendState, BackendToolResult, CallTrace } from './backends.types';
import { DEFAULT_BACKOFF } from './domain/backoff';

/** Debounce of `tools/list_changed` refreshes. */
const REFRESH_DEBOUNCE_MS = 200;

/**
 * The router's MCP client side: one supervised connection per configured backend (architecture §3),
 * each pushing its tool catalog into the registry. The only place that talks to backends.
 */
@Injectable()
export class BackendsService implements OnApplicationShutdown {
  private readonly logger = new Logger(BackendsService.name);
  private readonly connections: ReadonlyMap<string, BackendConnection>;
  private started: Promise<void> | undefined;
  /** Bound once so it can be removed again; see start. */
  private readonly killAllNow = () => {
    for (const connection of this.connections.values()) connection.killNow();
  };

  constructor(
    @Inject(BACKENDS_CONFIG) configs: BackendConfig[],
    registry: RegistryService,
    // Optional: the app may not provide a clock; supervision only needs real time then.
    @Optional() @Inject(CLOCK) clock: Clock = systemClock,
  ) {
    const deps = { registry, backoff: DEFAULT_BACKOFF, refreshDebounceMs: REFRESH_DEBOUNCE_MS, now: () => clock.now() };
    this.connections = new Map(configs.map((config) => [config.name, new BackendConnection(config, deps)]));
  }

  /**
   * Connects every backend in parallel; resolves once each one's first attempt (bounded by its
   * timeoutMs) is over. Called once the router listens, and not awaited there: liveness never
   * waits for a backend, and readiness says when every required one is up. A backend whose first
   * attempt fails is `down` and supervision keeps retrying. Idempotent.
   */
  start(): Promise<void> {
    this.started ??= this.startAll();
    return this.started;
  }

  private async startAll(): Promise<void> {
    // Stdio children lead their own process groups, so a router that dies without shutdown hooks
    // would not take them along through its terminal's signals; kill them on the way out.
    process.once('exit', this.killAllNow);
    await Promise.all([...this.connections.values()].map((connection) => connection.start()));
    const states = this.states();
    this.logger.log({
      msg: 'backends started',
      up: states.filter((s) => s.status === 'up').map((s) => s.name),
      down: states.filter((s) => s.status !== 'up').map((s) => s.name),
    });
  }

  /** Stops supervision, closes every client and waits until every stdio process group is gone. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.stop()));
    process.removeListener('exit', this.killAllNow);
  }

  /**
   * Calls one tool on one backend and returns its result untouched. Rejects with RouterError:
   * `backend_unavailable` (unknown or not connected right now; at once, without waiting),
   * `backend_timeout` (no answer within the backend's timeoutMs), `response_too_large`, or
   * `backend_failed` (connection lost during the call, a JSON-RPC error, a malformed result).
   */
  async callTool(backend: string, tool: string, args: Record<string, unknown>, trace?: CallTrace): Promise<BackendToolResult> {
    const connection = this.connections.get(backend);
    if (!connection) throw new RouterError('backend_unavailable', `unknown backend "${backend.slice(0, 64)}"`);
    return connection.callTool(tool, args, trace);
  }

  /**
   * Lists every connected backend's tools again, as a `list_changed` would: a backend may change a
   * definition without notifying, and only a fresh list shows it.
   */
  relistAll(): void {
    for (const connection of this.connections.values()) connection.requestRefresh();
  }

  /**
   * Undefined when `backend`'s catalog reflects every `tools/list_changed` it announced; else a
   * promise that resolves true once it does, false past the backend's call timeout.
   */
  toolsSettled(backend: string): Promise<boolean> | undefined {
    return this.connections.get(backend)?.toolsSettled();
  }

  /** Every configured backend's connection state, in configuration order. */
  states(): BackendState[] {
    return [...this.connections.values()].map((connection) => connection.state());
  }
}

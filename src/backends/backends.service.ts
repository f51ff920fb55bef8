import { Inject, Injectable, Logger, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { CLOCK, type Clock, systemClock } from '../common/clock';
import { RouterError } from '../common/router-error';
import { ConfigService } from '../config/config.service';
import { BACKENDS_CONFIG } from '../config/config.tokens';
import type { BackendConfig } from '../config/config.types';
import { needsNewConnection } from '../config/domain/reload-plan';
import { OfferingCatalog } from '../registry/offering-catalog.service';
import { RegistryService } from '../registry/registry.service';
import { BackendConnection, type ConnectionDeps } from './backend-connection';
import type { BackendState, BackendToolResult, CallTrace } from './backends.types';
import { backendFailure } from './domain/backend-failures';
import type { OfferingRequest } from './channels/backend-channel';
import { DEFAULT_BACKOFF } from './domain/backoff';

/** Debounce of `tools/list_changed` refreshes. */
const REFRESH_DEBOUNCE_MS = 200;

/**
 * The router's MCP client side: one supervised connection per configured backend (architecture §3),
 * each pushing its tool catalog into the registry. The only place that talks to backends.
 *
 * A reload swaps connections in one turn: a backend added gets a connection; one removed or
 * changed is taken out of the map at once (new calls never reach it) and retired, closing once its
 * calls in flight have their answers; a changed one gets a new connection beside it.
 */
@Injectable()
export class BackendsService implements OnApplicationShutdown {
  private readonly logger = new Logger(BackendsService.name);
  private readonly connections = new Map<string, BackendConnection>();
  /** Connections a reload removed or replaced, until their calls in flight are answered. */
  private readonly retiring = new Set<BackendConnection>();
  private readonly deps: ConnectionDeps;
  private started: Promise<void> | undefined;
  /** Bound once so it can be removed again; see start. */
  private readonly killAllNow = () => {
    for (const connection of [...this.connections.values(), ...this.retiring]) connection.killNow();
  };

  constructor(
    @Inject(BACKENDS_CONFIG) configs: BackendConfig[],
    private readonly registry: RegistryService,
    private readonly offerings: OfferingCatalog,
    runningConfig: ConfigService,
    // Optional: the app may not provide a clock; supervision only needs real time then.
    @Optional() @Inject(CLOCK) clock: Clock = systemClock,
  ) {
    this.deps = { registry, offerings, backoff: DEFAULT_BACKOFF, refreshDebounceMs: REFRESH_DEBOUNCE_MS, now: () => clock.now() };
    for (const config of configs) this.connections.set(config.name, new BackendConnection(config, this.deps));
    runningConfig.onReload((next) => this.reconfigure(next.backends));
  }

  /**
   * Applies a reloaded backends list in this turn; connecting and draining go on in the
   * background. The map follows the config's order, as `states()` promises.
   */
  private reconfigure(configs: readonly BackendConfig[]): void {
    const wanted = new Set(configs.map((c) => c.name));
    for (const [name, connection] of this.connections) {
      if (wanted.has(name)) continue;
      this.connections.delete(name);
      // Its tools leave the catalog now: no new call may resolve to a backend that is going.
      this.registry.removeBackend(name);
      this.offerings.removeBackend(name);
      this.retire(connection);
    }
    const next = new Map<string, BackendConnection>();
    for (const config of configs) {
      const current = this.connections.get(config.name);
      if (current && !needsNewConnection(current.config, config)) {
        next.set(config.name, current);
        continue;
      }
      if (current) this.retire(current);
      const connection = new BackendConnection(config, this.deps);
      next.set(config.name, connection);
      // Before start() it connects with the rest; after, at once, outside any request.
      if (this.started) void connection.start();
    }
    this.connections.clear();
    for (const [name, connection] of next) this.connections.set(name, connection);
  }

  private retire(connection: BackendConnection): void {
    this.retiring.add(connection);
    void connection.retire().finally(() => this.retiring.delete(connection));
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
    await Promise.all([...this.connections.values(), ...this.retiring].map((connection) => connection.stop()));
    process.removeListener('exit', this.killAllNow);
  }

  /**
   * Calls one tool on one backend and returns its result untouched. Rejects with RouterError:
   * `backend_unavailable` (unknown or not connected right now; at once, without waiting),
   * `backend_timeout` (no answer within the backend's timeoutMs), `response_too_large`, or
   * `backend_failed` (connection lost during the call, a JSON-RPC error, a malformed result).
   */
  callTool(backend: string, tool: string, args: Record<string, unknown>, trace?: CallTrace): Promise<BackendToolResult> {
    // Not async: the connection's promise is handed on as is, without one more promise and its turns.
    const connection = this.connections.get(backend);
    if (!connection) return Promise.reject(new RouterError('backend_unavailable', `unknown backend "${backend.slice(0, 64)}"`));
    return connection.callTool(tool, args, trace);
  }

  /**
   * The failure `callTool` would answer at once, without calling (`backend_unavailable`: unknown or
   * not connected right now), or undefined when the backend is up. For a check that must come
   * right before a call is dispatched.
   */
  unavailable(backend: string): RouterError | undefined {
    const connection = this.connections.get(backend);
    if (!connection) return new RouterError('backend_unavailable', `unknown backend "${backend.slice(0, 64)}"`);
    return connection.state().status === 'up' ? undefined : backendFailure.notConnected(backend);
  }

  /**
   * One request about a backend's resources or prompts (architecture §16), in the backend's own
   * names and URIs. Rejects with RouterError as {@link callTool} does.
   */
  async request(backend: string, request: OfferingRequest): Promise<Record<string, unknown>> {
    const connection = this.connections.get(backend);
    if (!connection) throw new RouterError('backend_unavailable', `unknown backend "${backend.slice(0, 64)}"`);
    return connection.request(request);
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

import { Logger } from '@nestjs/common';
import { outsideRequest } from '../common/request-context';
import type { BackendConfig } from '../config/config.types';
import type { OfferingCatalog } from '../registry/offering-catalog.service';
import type { RegistryService } from '../registry/registry.service';
import type { BackendState, BackendStatus, BackendToolResult, CallTrace } from './backends.types';
import type { BackendChannel, ChannelCloseReason, OfferingRequest } from './channels/backend-channel';
import { openChannel } from './channels/open-channel';
import { CoalescingRunner } from './coalescing-runner';
import { type BackoffPolicy, INITIAL_SUPERVISION, planRestart, type SupervisionEvent } from './domain/backoff';
import { backendFailure, toRouterError } from './domain/backend-failures';
import { type ListedTool, toCatalogTools } from './domain/catalog';
import { PROBE_TIMEOUT_MS } from './domain/limits';
import { OfferingSync } from './offering-sync';

export interface ConnectionDeps {
  registry: RegistryService;
  offerings: OfferingCatalog;
  backoff: BackoffPolicy;
  /** Delay between a `tools/list_changed` notification and the refresh it causes. */
  refreshDebounceMs: number;
  now: () => number;
}

/** One connection attempt. A newer attempt makes every callback of an older one inert. */
interface Session {
  readonly channel: BackendChannel;
  closed: boolean;
  /** A `tools/list_changed` arrived before the session was up: refresh once it is. */
  listChangedEarly: boolean;
}

/**
 * One backend: the supervision that reconnects it with backoff when it fails, and its tool catalog
 * kept in the registry. Everything the transport decides is its channel's (`channels/`, a fresh one
 * per connection attempt); nothing here branches on the transport. Calls go through only while it
 * is `up`; otherwise they fail at once, since waiting for a reconnect would only turn an outage
 * into timeouts.
 */
export class BackendConnection {
  private readonly logger = new Logger(BackendConnection.name);
  private readonly refresher: CoalescingRunner;
  private readonly offerings: OfferingSync;
  private status: BackendStatus = 'connecting';
  private restarts = 0;
  private toolCount = 0;
  private lastError: string | undefined;
  /** The last connect failure logged at warn: the same one again goes to debug, so it is said once. */
  private lastWarnedFailure: string | undefined;
  private session: Session | undefined;
  private upSinceMs = 0;
  private supervision = INITIAL_SUPERVISION;
  private retryTimer: NodeJS.Timeout | undefined;
  private attemptInFlight: Promise<void> | undefined;
  private probing = false;
  private stopped = false;
  /** `tools/list_changed` notifications received, and how many of them the published catalog reflects. */
  private announced = 0;
  private reflected = 0;
  /** Calls waiting for the catalog to reflect an announcement; each checks whether it may go on. */
  private readonly settleWaiters = new Set<() => void>();
  /** Calls sent and not yet answered, and who waits for them to be none (a retiring connection). */
  private inFlight = 0;
  private onIdle: (() => void) | undefined;
  private stopping: Promise<void> | undefined;

  constructor(
    readonly config: BackendConfig,
    private readonly deps: ConnectionDeps,
  ) {
    this.refresher = new CoalescingRunner(deps.refreshDebounceMs, () => this.refreshCatalog());
    this.offerings = new OfferingSync(config.name, deps.offerings, config.timeoutMs, deps.refreshDebounceMs);
  }

  get name(): string {
    return this.config.name;
  }

  state(): BackendState {
    const pid = this.session?.channel.pid;
    const era = this.session?.channel.era;
    return {
      name: this.name,
      transport: this.config.transport,
      required: this.config.required,
      status: this.status,
      restarts: this.restarts,
      tools: this.toolCount,
      ...(this.lastError !== undefined ? { lastError: this.lastError } : {}),
      ...(pid !== undefined ? { pid } : {}),
      ...(era !== undefined ? { era } : {}),
    };
  }

  /** The first connection attempt; resolves when it is up or has failed (then supervision retries). */
  start(): Promise<void> {
    // A router stopped while still booting must not spawn anything more.
    if (this.stopped) return Promise.resolve();
    return this.connect();
  }

  callTool(tool: string, args: Record<string, unknown>, trace?: CallTrace): Promise<BackendToolResult> {
    const session = this.session;
    if (this.status !== 'up' || !session) {
      return Promise.reject(backendFailure.notConnected(this.name, this.status === 'up' ? 'down' : this.status));
    }
    // The hot path: one channel, no branch here. What a failure says about the connection (lost,
    // suspect) reaches supervision through the channel's events, before the call rejects. One
    // `then` rather than an async function: a promise less, and fewer turns, on every call.
    const timeoutMs = this.config.timeoutMs;
    this.inFlight++;
    let call: Promise<BackendToolResult>;
    try {
      call = session.channel.call(trace === undefined ? { tool, arguments: args, timeoutMs } : { tool, arguments: args, timeoutMs, trace });
    } catch (err) {
      call = Promise.reject(err);
    }
    return call.then(
      (result) => {
        this.settled();
        return result;
      },
      (err: unknown) => {
        this.settled();
        const error = toRouterError(err, this.name, timeoutMs);
        // The backend's own text never reaches the message (it may echo arguments); debug only.
        this.logger.debug({ msg: 'backend call failed', backend: this.name, tool, code: error.code, detail: error.message });
        throw error;
      },
    );
  }

  /** One call of `callTool` is over. */
  private settled(): void {
    if (--this.inFlight === 0) this.onIdle?.();
  }

  /**
   * One request about the backend's resources or prompts (architecture §16), within its timeoutMs;
   * fails at once while it is not up, as a tool call does.
   */
  async request(request: OfferingRequest): Promise<Record<string, unknown>> {
    const session = this.session;
    if (this.status !== 'up' || !session) throw backendFailure.notConnected(this.name);
    const timeoutMs = this.config.timeoutMs;
    try {
      return await session.channel.request(request, timeoutMs);
    } catch (err) {
      const error = toRouterError(err, this.name, timeoutMs);
      this.logger.debug({ msg: 'backend request failed', backend: this.name, method: request.method, code: error.code, detail: error.message });
      throw error;
    }
  }

  /** Lists the tools again (debounced with `list_changed` refreshes); nothing while not up. */
  requestRefresh(): void {
    if (this.status === 'up' && !this.stopped) this.refresher.request();
  }

  /**
   * Undefined when the catalog reflects every `tools/list_changed` received so far (the hot path:
   * no promise, no tick). Otherwise a promise that resolves true once the refresh that follows has
   * been published (or the backend is no longer up: its calls fail at once then), or false when
   * that takes longer than the backend's call timeout: a call must not be decided on the tools as
   * they were before the backend announced a change.
   */
  toolsSettled(): Promise<boolean> | undefined {
    if (this.reflected >= this.announced || this.status !== 'up') return undefined;
    const target = this.announced;
    return new Promise((resolve) => {
      const check = () => {
        if (this.reflected < target && this.status === 'up' && !this.stopped) return;
        clearTimeout(timer);
        this.settleWaiters.delete(check);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.settleWaiters.delete(check);
        resolve(false);
      }, this.config.timeoutMs);
      this.settleWaiters.add(check);
    });
  }

  /** Stops supervision and closes the connection; a stdio backend's process group is gone after. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.stopNow();
    return this.stopping;
  }

  private async stopNow(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.refresher.stop();
    this.offerings.stop();
    this.status = 'down';
    this.wakeSettleWaiters();
    if (this.session) await this.closeSession(this.session, 'shutdown');
    await this.attemptInFlight;
  }

  /**
   * Closes the connection once the calls sent on it have their answers (each is bounded by the
   * backend's timeoutMs): a reload removed or replaced this backend, so nothing new reaches it, and
   * it neither reconnects nor publishes tools from now on. Resolves when it is closed.
   */
  async retire(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.refresher.stop();
    this.wakeSettleWaiters();
    if (this.inFlight > 0) {
      this.logger.log({ msg: 'backend retiring: finishing its calls', backend: this.name, calls: this.inFlight });
      await new Promise<void>((resolve) => (this.onIdle = resolve));
    }
    await this.stop();
    this.logger.log({ msg: 'backend retired', backend: this.name });
  }

  /** Synchronous last resort for the router's `exit` event: SIGKILL a stdio child's group. */
  killNow(): void {
    this.session?.channel.kill();
  }

  private connect(): Promise<void> {
    const attempt = this.runAttempt().finally(() => {
      if (this.attemptInFlight === attempt) this.attemptInFlight = undefined;
    });
    this.attemptInFlight = attempt;
    return attempt;
  }

  private async runAttempt(): Promise<void> {
    // One deadline for initialize and every tools/list page: boot waits at most timeoutMs per backend.
    const deadline = this.deps.now() + this.config.timeoutMs;
    const remaining = () => Math.max(1, deadline - this.deps.now());
    const session = this.openSession();
    try {
      await session.channel.connect(remaining());
      const through = this.announced;
      const tools = await session.channel.listTools(remaining);
      if (session.closed) throw new Error('connection closed while listing tools');
      if (this.stopped || this.session !== session) return;
      this.publish(tools, through);
      // The first listing of resources and prompts is part of connecting, within the same deadline,
      // so a client served once the backend is up sees them. A failed listing is logged, not fatal.
      await this.offerings.connected(session.channel, remaining);
      if (session.closed) throw new Error('connection closed while listing resources and prompts');
      if (this.stopped || this.session !== session) return;
      this.status = 'up';
      this.upSinceMs = this.deps.now();
      this.lastError = undefined;
      this.lastWarnedFailure = undefined;
      this.logger.log({ msg: 'backend up', backend: this.name, transport: this.config.transport, tools: this.toolCount, restarts: this.restarts });
      if (session.listChangedEarly) this.refresher.request();
    } catch (err) {
      if (this.stopped || this.session !== session) return;
      this.status = 'down';
      this.lastError = session.channel.describeFailure(err);
      const repeated = this.lastError === this.lastWarnedFailure;
      this.lastWarnedFailure = this.lastError;
      const line = { msg: repeated ? 'backend connect failed again' : 'backend connect failed', backend: this.name, error: this.lastError };
      if (repeated) this.logger.debug(line);
      else this.logger.warn(line);
      await this.closeSession(session, 'reconnect');
      this.scheduleRetry({ kind: 'failed' });
    }
  }

  /**
   * A fresh channel for this attempt, made current. Its events may come from inside a call (an
   * HTTP call that found the backend gone): what they set off (the log, the probe, the reconnect)
   * serves the process, so it runs outside that call's request context.
   */
  private openSession(): Session {
    const session: Session = {
      channel: openChannel(this.config, {
        onClose: (reason) => outsideRequest(() => this.onClosed(session, reason)),
        onLost: (reason) => outsideRequest(() => this.onLost(session, reason)),
        onSuspect: () => outsideRequest(() => void this.probe(session)),
        onListChanged: () => outsideRequest(() => this.onToolListChanged(session)),
        onOfferingsChanged: (kind) =>
          outsideRequest(() => {
            if (this.session === session && this.status === 'up') this.offerings.changed(kind);
          }),
        // A 2026 listing's ttlMs ran out: list again, without making calls wait for it.
        onStale: () =>
          outsideRequest(() => {
            if (this.session === session) this.requestRefresh();
          }),
      }),
      closed: false,
      listChangedEarly: false,
    };
    this.session = session;
    return session;
  }

  private onClosed(session: Session, reason: string): void {
    session.closed = true;
    this.onLost(session, reason);
  }

  /** A broken response stream: only a failed ping proves the server is gone. */
  private async probe(session: Session): Promise<void> {
    if (this.probing || this.status !== 'up' || this.session !== session) return;
    this.probing = true;
    try {
      await session.channel.ping(Math.min(this.config.timeoutMs, PROBE_TIMEOUT_MS));
    } catch (err) {
      this.onLost(session, `liveness probe failed: ${session.channel.describeFailure(err)}`);
    } finally {
      this.probing = false;
    }
  }

  /** An up connection went away: calls fail at once from now on, and supervision reconnects. */
  private onLost(session: Session, reason: string): void {
    if (this.session !== session || this.status !== 'up' || this.stopped) return;
    this.status = 'down';
    this.lastError = reason;
    this.offerings.disconnected();
    this.wakeSettleWaiters();
    this.logger.warn({ msg: 'backend lost', backend: this.name, error: reason });
    // Closing rejects every call in flight now instead of at its timeout (HTTP has no other signal).
    void this.closeSession(session, 'reconnect');
    // The registry keeps the last tools (architecture §4): calls answer "unavailable", not "unknown tool".
    this.scheduleRetry({ kind: 'lost', upSinceMs: this.upSinceMs });
  }

  private onToolListChanged(session: Session): void {
    if (this.session !== session) return;
    this.announced++;
    if (this.status === 'up') this.refresher.request();
    else session.listChangedEarly = true;
  }

  private scheduleRetry(event: SupervisionEvent): void {
    if (this.stopped) return;
    const plan = planRestart(this.supervision, event, this.deps.now(), this.deps.backoff);
    this.supervision = plan.state;
    const log = { backend: this.name, retryInMs: plan.delayMs, attempt: plan.state.attempt };
    if (plan.crashLooping) this.logger.warn({ msg: 'backend crash-looping', ...log });
    else this.logger.log({ msg: 'backend reconnect scheduled', ...log });
    // A loss seen by a call schedules this inside that call's context: the retry is not the call's.
    this.retryTimer = outsideRequest(() =>
      setTimeout(() => {
        this.retryTimer = undefined;
        this.restarts++;
        void this.connect();
      }, plan.delayMs),
    );
  }

  private async refreshCatalog(): Promise<void> {
    const session = this.session;
    if (!session || this.status !== 'up') return;
    const through = this.announced;
    try {
      const tools = await session.channel.listTools(() => this.config.timeoutMs);
      if (this.session !== session || this.stopped) return;
      this.publish(tools, through);
    } catch (err) {
      if (this.session !== session || this.stopped) return;
      this.logger.warn({ msg: 'tools refresh failed', backend: this.name, error: session.channel.describeFailure(err) });
      // Calls wait for the announced change (up to their timeout): try again, spaced by the runner.
      this.refresher.request();
    }
  }

  /** Publishes a listing that began when `through` announcements had been received. */
  private publish(tools: readonly ListedTool[], through: number): void {
    const catalog = toCatalogTools(this.name, tools, (reason, tool) =>
      this.logger.warn({ msg: 'tool left out of the catalog', backend: this.name, ...(tool !== undefined ? { tool } : {}), reason }),
    );
    this.deps.registry.replaceTools(this.name, catalog);
    this.toolCount = catalog.length;
    this.reflected = Math.max(this.reflected, through);
    this.wakeSettleWaiters();
  }

  private wakeSettleWaiters(): void {
    for (const check of [...this.settleWaiters]) check();
  }

  private closeSession(session: Session, reason: ChannelCloseReason): Promise<void> {
    return session.channel.close(reason);
  }
}

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolResultSchema, type Tool, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Logger } from '@nestjs/common';
import { outsideRequest } from '../common/request-context';
import { RouterError } from '../common/router-error';
import type { BackendConfig } from '../config/config.types';
import type { RegistryService } from '../registry/registry.service';
import { classifyTransportError, describeFailure, toRouterError } from './backend-errors';
import { createTransport } from './backend-transports';
import { HttpCallClient, HttpConnectionLostError, HttpSocketError } from './http-call-client';
import type { BackendState, BackendStatus, BackendToolResult } from './backends.types';
import { CoalescingRunner } from './coalescing-runner';
import { type BackoffPolicy, INITIAL_SUPERVISION, planRestart, type SupervisionEvent } from './domain/backoff';
import { backendFailure } from './domain/backend-failures';
import { outcomeOf, readCallAnswer, toCallResult } from './domain/call-answer';
import { toCatalogTools } from './domain/catalog';
import { DEFAULT_MAX_LINE_BYTES, StdioProcessTransport } from './stdio-process.transport';

/** How the router introduces itself to backends in `initialize`. */
const CLIENT_INFO = { name: 'centralmcp-router', version: '0.1.0' };
/** A backend that pages forever is broken; this many pages is far beyond any real catalog. */
const MAX_TOOL_PAGES = 100;
/** Bound of the liveness ping sent when an HTTP response stream breaks. */
const PROBE_TIMEOUT_MS = 5_000;
/** Bound of the session DELETE sent to an HTTP backend at shutdown. */
const TERMINATE_SESSION_MS = 1_000;

export interface ConnectionDeps {
  registry: RegistryService;
  backoff: BackoffPolicy;
  /** Delay between a `tools/list_changed` notification and the refresh it causes. */
  refreshDebounceMs: number;
  now: () => number;
}

/** One connection attempt's objects. A newer attempt makes every callback of an older one inert. */
interface Session {
  readonly client: Client;
  readonly transport: Transport;
  closed: boolean;
  /** A `tools/list_changed` arrived before the session was up: refresh once it is. */
  listChangedEarly: boolean;
  /** Streamable HTTP: the pooled client `tools/call` takes, set once the session is initialized. */
  calls?: { client: HttpCallClient; transport: StreamableHTTPClientTransport };
}

/**
 * One backend: its SDK client, the supervision that reconnects it with backoff when it fails, and
 * its tool catalog kept in the registry. Calls go through only while it is `up`; otherwise they
 * fail at once, since waiting for a reconnect would only turn an outage into timeouts.
 */
export class BackendConnection {
  private readonly logger = new Logger(BackendConnection.name);
  private readonly refresher: CoalescingRunner;
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

  constructor(
    readonly config: BackendConfig,
    private readonly deps: ConnectionDeps,
  ) {
    this.refresher = new CoalescingRunner(deps.refreshDebounceMs, () => this.refreshCatalog());
  }

  get name(): string {
    return this.config.name;
  }

  state(): BackendState {
    const transport = this.session?.transport;
    return {
      name: this.name,
      transport: this.config.transport,
      required: this.config.required,
      status: this.status,
      restarts: this.restarts,
      tools: this.toolCount,
      ...(this.lastError !== undefined ? { lastError: this.lastError } : {}),
      ...(transport instanceof StdioProcessTransport && transport.pid !== undefined ? { pid: transport.pid } : {}),
    };
  }

  /** The first connection attempt; resolves when it is up or has failed (then supervision retries). */
  start(): Promise<void> {
    // A router stopped while still booting must not spawn anything more.
    if (this.stopped) return Promise.resolve();
    return this.connect();
  }

  async callTool(tool: string, args: Record<string, unknown>): Promise<BackendToolResult> {
    const session = this.session;
    if (this.status !== 'up' || !session) {
      throw backendFailure.notConnected(this.name);
    }
    // Calls are the hot path: Streamable HTTP and stdio skip the SDK client (BENCHMARKS.md items 1
    // and 6); a legacy SSE backend answers on its event stream, which only the SDK client reads.
    try {
      if (session.calls) {
        const { client, transport } = session.calls;
        const info = { sessionId: transport.sessionId, protocolVersion: transport.protocolVersion };
        return await client.callTool(info, tool, args, this.config.timeoutMs);
      }
      if (session.transport instanceof StdioProcessTransport) {
        const { id, message } = await session.transport.request('tools/call', { name: tool, arguments: args }, this.config.timeoutMs);
        const outcome = outcomeOf(readCallAnswer(message, id), this.name);
        if (outcome instanceof RouterError) throw outcome;
        return outcome;
      }
      const result = await session.client.callTool({ name: tool, arguments: args }, CallToolResultSchema, {
        timeout: this.config.timeoutMs,
      });
      const relayed = toCallResult(result);
      if (!relayed) throw backendFailure.malformed(this.name);
      return relayed;
    } catch (err) {
      // The loss is the backend's, not this call's: what it sets off (the log, the probe, the
      // reconnect) runs outside the call's request context.
      if (err instanceof HttpConnectionLostError) outsideRequest(() => this.onLost(session, err.message));
      // A socket that broke mid-answer: a crashed backend and one dropped connection look the same.
      else if (err instanceof HttpSocketError) outsideRequest(() => void this.probe(session));
      const error = toRouterError(err, this.name, this.config.timeoutMs);
      // The backend's own text may echo arguments: debug only.
      this.logger.debug({ msg: 'backend call failed', backend: this.name, tool, code: error.code, detail: describeFailure(err) });
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
   * that takes longer than the backend's call timeout. Issue 12: a call must not be decided on
   * the tools as they were before the backend announced a change.
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

  /** Stops supervision and closes the connection; a stdio backend's process group is gone after. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.refresher.stop();
    this.status = 'down';
    this.wakeSettleWaiters();
    if (this.session) await this.closeSession(this.session, true);
    await this.attemptInFlight;
  }

  /** Synchronous last resort for the router's `exit` event: SIGKILL a stdio child's group. */
  killNow(): void {
    const transport = this.session?.transport;
    if (transport instanceof StdioProcessTransport) transport.killNow();
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
    const transport = createTransport(this.config);
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const session: Session = { client, transport, closed: false, listChangedEarly: false };
    this.session = session;
    client.onclose = () => this.onClosed(session);
    client.onerror = (err) => this.onTransportError(session, err);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.onToolListChanged(session));
    try {
      await client.connect(transport, { timeout: remaining() });
      if (transport instanceof StreamableHTTPClientTransport && this.config.transport === 'http') {
        const calls = new HttpCallClient({ backend: this.name, url: new URL(this.config.url), headers: this.config.headers, maxResponseBytes: DEFAULT_MAX_LINE_BYTES });
        session.calls = { client: calls, transport };
      }
      const through = this.announced;
      const tools = await listAllTools(client, remaining);
      if (session.closed) throw new Error('connection closed while listing tools');
      if (this.stopped || this.session !== session) return;
      this.publish(tools, through);
      this.status = 'up';
      this.upSinceMs = this.deps.now();
      this.lastError = undefined;
      this.lastWarnedFailure = undefined;
      this.logger.log({ msg: 'backend up', backend: this.name, transport: this.config.transport, tools: this.toolCount, restarts: this.restarts });
      if (session.listChangedEarly) this.refresher.request();
    } catch (err) {
      if (this.stopped || this.session !== session) return;
      this.status = 'down';
      this.lastError = this.failureText(session, err);
      const repeated = this.lastError === this.lastWarnedFailure;
      this.lastWarnedFailure = this.lastError;
      const line = { msg: repeated ? 'backend connect failed again' : 'backend connect failed', backend: this.name, error: this.lastError };
      if (repeated) this.logger.debug(line);
      else this.logger.warn(line);
      await this.closeSession(session, false);
      this.scheduleRetry({ kind: 'failed' });
    }
  }

  private onClosed(session: Session): void {
    session.closed = true;
    this.onLost(session, this.failureText(session, new Error('connection closed')));
  }

  private onTransportError(session: Session, err: Error): void {
    if (this.session !== session || this.stopped) return;
    if (this.config.transport === 'stdio') {
      // A bad line or a failed write: the child's exit, if any, is reported by onclose.
      this.logger.debug({ msg: 'transport error', backend: this.name, detail: describeFailure(err) });
      return;
    }
    switch (classifyTransportError(err)) {
      case 'lost':
        this.onLost(session, describeFailure(err));
        return;
      case 'suspect':
        void this.probe(session);
        return;
      case 'benign':
        this.logger.debug({ msg: 'transport error', backend: this.name, detail: describeFailure(err) });
        return;
    }
  }

  /** A broken response stream: only a failed ping proves the server is gone. */
  private async probe(session: Session): Promise<void> {
    if (this.probing || this.status !== 'up') return;
    this.probing = true;
    try {
      await session.client.ping({ timeout: Math.min(this.config.timeoutMs, PROBE_TIMEOUT_MS) });
    } catch (err) {
      this.onLost(session, `liveness probe failed: ${describeFailure(err)}`);
    } finally {
      this.probing = false;
    }
  }

  /** An up connection went away: calls fail at once from now on, and supervision reconnects. */
  private onLost(session: Session, reason: string): void {
    if (this.session !== session || this.status !== 'up' || this.stopped) return;
    this.status = 'down';
    this.lastError = reason;
    this.wakeSettleWaiters();
    this.logger.warn({ msg: 'backend lost', backend: this.name, error: reason });
    // Closing rejects every call in flight now instead of at its timeout (HTTP has no other signal).
    void this.closeSession(session, false);
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
      const tools = await listAllTools(session.client, () => this.config.timeoutMs);
      if (this.session !== session || this.stopped) return;
      this.publish(tools, through);
    } catch (err) {
      if (this.session !== session || this.stopped) return;
      this.logger.warn({ msg: 'tools refresh failed', backend: this.name, error: describeFailure(err) });
      // Calls wait for the announced change (up to their timeout): try again, spaced by the runner.
      this.refresher.request();
    }
  }

  /** Publishes a listing that began when `through` announcements had been received. */
  private publish(tools: readonly Tool[], through: number): void {
    const catalog = toCatalogTools(this.name, tools, (reason) =>
      this.logger.warn({ msg: 'tool left out of the catalog', backend: this.name, reason }),
    );
    this.deps.registry.replaceTools(this.name, catalog);
    this.toolCount = catalog.length;
    this.reflected = Math.max(this.reflected, through);
    this.wakeSettleWaiters();
  }

  private wakeSettleWaiters(): void {
    for (const check of [...this.settleWaiters]) check();
  }

  private failureText(session: Session, err: unknown): string {
    // "Connection closed" says nothing; the child's exit status and last stderr line do.
    if (session.transport instanceof StdioProcessTransport && (session.closed || session.transport.spawnFailed)) return session.transport.describeExit();
    return describeFailure(err);
  }

  private async closeSession(session: Session, terminate: boolean): Promise<void> {
    const { client, transport } = session;
    if (terminate && transport instanceof StreamableHTTPClientTransport && transport.sessionId && !session.closed) {
      // Spec: a client that no longer needs a session SHOULD DELETE it, so the server can free it.
      await withTimeout(transport.terminateSession(), TERMINATE_SESSION_MS).catch((err: unknown) =>
        this.logger.debug({ msg: 'session termination failed', backend: this.name, detail: describeFailure(err) }),
      );
    }
    session.calls?.client.close();
    await client.close().catch((err: unknown) =>
      this.logger.debug({ msg: 'close failed', backend: this.name, detail: describeFailure(err) }),
    );
  }
}

/** `tools/list` through every page (spec "Pagination"), each page bounded by `timeoutMs()`. */
async function listAllTools(client: Client, timeoutMs: () => number): Promise<Tool[]> {
  const tools: Tool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: timeoutMs() });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) return tools;
    if (seen.has(cursor)) throw new Error('backend repeated a tools/list cursor');
    seen.add(cursor);
  }
  throw new Error(`backend listed more than ${MAX_TOOL_PAGES} pages of tools`);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

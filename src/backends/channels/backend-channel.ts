import type { BackendToolResult, CallTrace } from '../backends.types';
import type { ListedTool } from '../domain/catalog';
import type { OfferingCapabilities, OfferingKind } from '../../registry/domain/offerings';

/**
 * What a channel tells its supervisor. Called at most once per fact that matters to supervision;
 * the supervisor runs them outside any request's async context (a call may be what noticed).
 */
export interface ChannelEvents {
  /**
   * The channel closed by itself (the child exited, the event stream or session ended). `reason`
   * is one line for logs and health detail (for stdio: the exit status and last stderr line).
   */
  onClose(reason: string): void;
  /**
   * The backend is proven gone while the channel is still open (unreachable, session unknown):
   * the supervisor closes it and reconnects. Calls in flight fail when it is closed.
   */
  onLost(reason: string): void;
  /**
   * Something broke that a crashed backend and one dropped connection both explain (a response
   * stream cut mid-answer): the supervisor decides with `ping` before tearing anything down.
   */
  onSuspect(): void;
  /** The backend sent `notifications/tools/list_changed` (MCP spec, "List Changed Notification"). */
  onListChanged(): void;
  /**
   * The backend sent `notifications/resources/list_changed` or `notifications/prompts/list_changed`
   * (`resources` stands for its templates too).
   */
  onOfferingsChanged?(kind: Exclude<OfferingKind, 'templates'>): void;
  /**
   * The last listing's freshness ran out (a 2026-07-28 backend's `ttlMs`, spec "Caching"): list
   * again. Not an announced change: calls do not wait for it.
   */
  onStale?(): void;
}

/** The MCP era a channel speaks: `legacy` opens with `initialize` (≤ 2025-11-25), `modern` is 2026-07-28. */
export type ProtocolEra = 'legacy' | 'modern';

/** One `tools/call`: the tool, its arguments, and the deadline of this call. */
export interface ChannelCall {
  tool: string;
  arguments: Record<string, unknown>;
  /**
   * The call's deadline from now. Past it the call rejects with `backend_timeout`, its request is
   * torn down (no socket or pending id is held), and the backend is sent `notifications/cancelled`
   * (MCP spec, "Cancellation").
   */
  timeoutMs: number;
  /** With tracing on: the trace context the request carries, and where its rounds are told. */
  trace?: CallTrace;
}

/**
 * One request about a backend's resources or prompts (MCP spec, "Resources" and "Prompts"): a
 * listing page, a read or a get, in the backend's own names and URIs.
 */
export type OfferingRequest =
  | { method: 'resources/list' | 'resources/templates/list' | 'prompts/list'; cursor?: string }
  | { method: 'resources/read'; uri: string }
  | { method: 'prompts/get'; name: string; arguments: Record<string, string> };

/** Why a channel is closed: at `shutdown` it tells the backend (e.g. DELETE of an HTTP session). */
export type ChannelCloseReason = 'shutdown' | 'reconnect';

/**
 * One connection attempt to one backend over one transport (spec "Transports"): a fresh channel per
 * attempt, never reused after it closed. The supervisor (`BackendConnection`) decides when to open,
 * close and reopen; the channel owns everything the transport decides: the handshake, the call
 * path with its deadline, cancel and size cap (one cap and one answer validator, in `domain/`),
 * and how its failures read.
 *
 * Every rejection of `call` is a `RouterError` (`backend_timeout`, `response_too_large`,
 * `backend_failed`, `backend_unavailable`): the message names the backend and the kind of failure,
 * never the backend's own text, which may echo arguments (architecture §5). A failure that says something
 * about the connection (not just this call) is also reported on `ChannelEvents` before the
 * rejection.
 *
 * Built by `openChannel(config, events)` in `open-channel.ts`.
 */
export interface BackendChannel {
  /** Process (and process group) id of a stdio backend's child; undefined elsewhere. */
  readonly pid: number | undefined;

  /** The era it speaks, once known (an era-probing channel knows after `connect`). */
  readonly era?: ProtocolEra;

  /**
   * Opens the transport and completes the protocol handshake (`initialize` in the 2025 eras),
   * within `timeoutMs`. Rejects with the transport's error; `describeFailure` turns it into text.
   */
  connect(timeoutMs: number): Promise<void>;

  /**
   * Every page of `tools/list` (spec "Pagination"), each page bounded by `pageTimeoutMs()` (the
   * supervisor hands out what is left of one deadline). A repeated cursor or more than
   * `MAX_TOOL_PAGES` pages rejects: a backend that pages forever is broken.
   */
  listTools(pageTimeoutMs: () => number): Promise<ListedTool[]>;

  /** Calls one tool: the hot path. Resolves with the validated result or rejects with a RouterError. */
  call(request: ChannelCall): Promise<BackendToolResult>;

  /**
   * What the backend declared beside tools at its handshake; nothing before `connect` resolved.
   * A channel whose era has no such requests yet declares nothing.
   */
  offerings(): OfferingCapabilities;

  /**
   * One request about resources or prompts within `timeoutMs`, resolved with the result as the
   * backend sent it (validated by the SDK's schema of that result) or rejected with the
   * transport's or backend's error, which `toRouterError` reads.
   */
  request(request: OfferingRequest, timeoutMs: number): Promise<Record<string, unknown>>;

  /** A liveness check (`ping`) within `timeoutMs`; rejects when the backend does not answer. */
  ping(timeoutMs: number): Promise<void>;

  /**
   * Closes the channel; calls in flight fail at once. Resolves when the transport is gone (a stdio
   * child's whole process group has exited). Safe to call more than once.
   */
  close(reason: ChannelCloseReason): Promise<void>;

  /** Synchronous last resort for the router's `exit` event: SIGKILL a stdio child's group. */
  kill(): void;

  /** A short single-line description of a failure of this channel, for logs and `states()`. */
  describeFailure(err: unknown): string;
}

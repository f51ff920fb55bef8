/**
 * Every limit a backend channel enforces, in one place: each is one named constant that every
 * channel (stdio, Streamable HTTP, SSE) reads, so a limit is changed once.
 */

/** How the router introduces itself to backends in `initialize`. */
export const CLIENT_INFO = { name: 'centralmcp-router', version: '0.1.0' } as const;

/**
 * Largest answer to one request, in bytes (a stdio line, an HTTP response body): a bigger one
 * fails its own call only. Below the SDK's own 10 MiB stdio read buffer, whose overflow would fail
 * every call in flight.
 */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/** A backend that pages forever is broken; this many pages is far beyond any real catalog. */
export const MAX_TOOL_PAGES = 100;

/** Bound of the liveness ping sent when a response stream breaks. */
export const PROBE_TIMEOUT_MS = 5_000;

/** Bound of the session DELETE sent to an HTTP backend at shutdown. */
export const TERMINATE_SESSION_MS = 1_000;

/** Bound of the `notifications/cancelled` POST sent after a call's deadline. */
export const CANCEL_TIMEOUT_MS = 1_000;

/**
 * An SDK-driven HTTP request (initialize, list, ping) may outlive the backend's call timeout by
 * this much at most before its socket is torn down.
 */
export const REQUEST_SLACK_MS = 1_000;

/**
 * Default bound of pooled connections per HTTP backend session: a backend that hangs holds one per
 * call until the deadline, and the router's file descriptors are shared by every backend and caller.
 */
export const HTTP_MAX_SOCKETS = 128;

/** Pooled HTTP sockets left idle are closed after this long unless the server announced less. */
export const HTTP_IDLE_SOCKET_MS = 30_000;

/** Time between SIGTERM and SIGKILL of a stdio backend's process group on close. */
export const KILL_GRACE_MS = 2_000;

/**
 * Requests sent for one `tools/call` at most, the first included, when a 2026-07-28 backend
 * answers `input_required` with only a `requestState` (spec basic/patterns/mrtr: the load-shedding
 * case). Each retry is another request to a backend that just said it is busy: four bounds what
 * one call can add to its load, and with the pauses below gives a short overload ~0.75 s to pass.
 * The v2 SDK client allows 10, but its rounds each answer something new from a user; these only
 * ask again.
 */
export const MAX_INPUT_ROUNDS = 4;

/**
 * Pause before each such retry: the spec lets a client retry at once, but a backend shedding load
 * gains nothing from an immediate one. The v2 SDK client's own pacing for these rounds.
 */
export const INPUT_RETRY_PAUSE_MS = 250;

import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';

/**
 * A backend's `tools/call` result as it sent it (MCP spec, CallToolResult), before any bounding.
 * A type alias, not an interface, so it stays assignable to index-signature shapes downstream.
 */
export type BackendToolResult = {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

/**
 * The trace a backend call belongs to (W3C Trace Context): sent with its request, in
 * `params._meta` on every transport (spec 2026-07-28, "_meta") and as HTTP headers where there
 * are headers, so the backend's own spans join the caller's trace.
 */
export interface CallTrace {
  /** `traceparent` and, when there is one, `tracestate` of the router's span for this call. */
  readonly context: Readonly<{ traceparent?: string; tracestate?: string }>;
  /** A 2026-07-28 backend answered round `round` of the call with `input_required`. */
  onInputRequired?: (round: number) => void;
}

/**
 * `connecting`: the first attempt since boot is under way. `up`: connected, calls go through.
 * `down`: not connected (failed, lost or crash-looping); calls fail at once while it retries.
 */
export type BackendStatus = 'connecting' | 'up' | 'down';

/** One backend's connection as health and metrics see it. */
export interface BackendState {
  name: string;
  transport: 'stdio' | 'http' | 'sse';
  required: boolean;
  status: BackendStatus;
  /** Reconnect attempts since boot (a respawn of a stdio child counts as one). */
  restarts: number;
  /** Tools in the last catalog the backend delivered (kept while it is down). */
  tools: number;
  /** Why the last attempt failed or the last connection was lost; cleared when it is up again. */
  lastError?: string;
  /** Process (and process group) id of a stdio backend's current child. */
  pid?: number;
  /**
   * The MCP era the backend was last met in: `legacy` (`initialize`, ≤ 2025-11-25) or `modern`
   * (2026-07-28). Absent until a connection attempt has settled it.
   */
  era?: 'legacy' | 'modern';
}

import { SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Logger } from '@nestjs/common';
import { ConnectionBrokeError, ConnectionLostError, describeFailure } from '../domain/backend-failures';
import type { ChannelEvents } from './backend-channel';

/**
 * What an HTTP or SSE transport error says about the connection. Streamable HTTP has no "closed"
 * event of its own: its errors are the only sign that a server went away.
 * - `lost`: the server is unreachable or no longer knows our session; reconnect.
 * - `suspect`: a response stream broke; a crashed server and a proxy cutting an idle stream look
 *   the same, so the supervisor probes with a ping before tearing down calls in flight.
 * - `benign`: one bad message on a working connection.
 */
export type TransportErrorKind = 'lost' | 'suspect' | 'benign';

export function classifyTransportError(err: unknown): TransportErrorKind {
  if (err instanceof SseError) return 'lost'; // legacy SSE: the session lives and dies with its stream
  if (err instanceof StreamableHTTPError) return err.code === 404 ? 'lost' : 'benign'; // spec: 404 = session gone
  if (!(err instanceof Error)) return 'benign';
  // fetch rejects with TypeError('fetch failed') when the server refuses or drops the connection.
  if (err instanceof TypeError) return 'lost';
  if (/^(Failed to reconnect|Maximum reconnection attempts)/.test(err.message)) return 'lost';
  if (err.message.startsWith('SSE stream disconnected')) return 'suspect';
  return 'benign';
}

/** Reports an HTTP or SSE transport error to the supervisor as what it says about the connection. */
export function reportTransportError(err: Error, events: ChannelEvents, logger: Logger, backend: string): void {
  switch (classifyTransportError(err)) {
    case 'lost':
      return events.onLost(describeFailure(err));
    case 'suspect':
      return events.onSuspect();
    case 'benign':
      logger.debug({ msg: 'transport error', backend, detail: describeFailure(err) });
  }
}

/**
 * Reports what a failed request of the router's own HTTP client says about the connection: over
 * Streamable HTTP there is no other sign of a dead backend than its requests failing.
 * - unreachable, or the session is gone: lost, reconnect;
 * - a socket that broke mid-answer: a crashed backend and one dropped connection look the same,
 *   so the supervisor checks with a ping.
 */
export function reportRequestFailure(err: unknown, events: ChannelEvents): void {
  if (err instanceof ConnectionLostError) events.onLost(err.message);
  else if (err instanceof ConnectionBrokeError) events.onSuspect();
}

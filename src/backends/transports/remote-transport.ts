import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ResponseTooLargeError } from '../domain/backend-failures';
import { MAX_RESPONSE_BYTES } from '../domain/limits';

/**
 * The fetch every 2025-era HTTP and SSE backend's SDK transport uses (the SDK transport moves the
 * messages; this bounds what each request may cost).
 * - Backend URLs come only from config: a redirect is refused rather than followed, so a
 *   compromised or misconfigured backend cannot send the router, with its configured
 *   credentials, to another host.
 * - A POST's response (one call's answer) is capped like every channel's answer: a 12 MiB answer
 *   fails its own call while it streams in, instead of being buffered and parsed whole on the
 *   event loop. The long-lived GET event stream carries many messages over time, so each of its
 *   events is capped instead: an event over the cap breaks the stream (the SDK transport reports
 *   it, and the supervisor reconnects), as a legacy SSE backend's answers arrive on that stream.
 * - Each POST gets a signal of its own, aborted `requestTimeoutMs` after it started or when the
 *   transport's signal aborts. The SDK passes one long-lived signal to every fetch and never aborts
 *   a timed-out call's request: undici would keep that socket for minutes, and add a listener to
 *   the long-lived signal on every call (a leak, and a list walked on every call).
 */
export function guardedFetch(maxResponseBytes: number = MAX_RESPONSE_BYTES, requestTimeoutMs = 60_000): FetchLike {
  return async (url, init) => {
    if (init?.method !== 'POST') {
      const stream = refuseRedirect(await fetch(url, { ...init, redirect: 'manual' }));
      return stream.body === null ? stream : capped(stream, eventSizeMeter(), maxResponseBytes, () => undefined);
    }
    const request = new AbortController();
    const outer = init.signal ?? undefined;
    const abort = () => request.abort(outer?.reason);
    const timer = setTimeout(() => request.abort(new Error(`backend request over ${requestTimeoutMs} ms`)), requestTimeoutMs);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      outer?.removeEventListener('abort', abort);
    };
    if (outer?.aborted) request.abort(outer.reason);
    else outer?.addEventListener('abort', abort, { once: true });
    let response: Response;
    try {
      response = refuseRedirect(await fetch(url, { ...init, signal: request.signal, redirect: 'manual' }));
    } catch (err) {
      done();
      throw err;
    }
    if (response.body === null) {
      done();
      return response;
    }
    if (Number(response.headers.get('content-length') ?? 0) > maxResponseBytes) {
      done();
      await response.body.cancel();
      throw new ResponseTooLargeError(maxResponseBytes);
    }
    let seen = 0;
    return capped(response, (chunk) => (seen += chunk.byteLength), maxResponseBytes, done);
  };
}

/**
 * The response with its body failing with ResponseTooLargeError once `measure` (fed every chunk)
 * says more than `maxBytes`; `done` runs when the body ends or fails.
 */
function capped(response: Response, measure: (chunk: Uint8Array) => number, maxBytes: number, done: () => void): Response {
  if (response.body === null) return response;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (measure(chunk) <= maxBytes) return controller.enqueue(chunk);
        done();
        controller.error(new ResponseTooLargeError(maxBytes));
      },
      flush: done,
    }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * For an event stream: the size of the largest event a chunk carried bytes of, counted since the
 * blank line before it (an event ends with one, which it includes; lines end with LF, CR or CR LF).
 * Fed chunk by chunk; a boundary may span chunks. An event that ends inside the chunk that takes
 * it over the cap is still over: the size is taken before the blank line starts the next event.
 */
export function eventSizeMeter(): (chunk: Uint8Array) => number {
  let pending = 0;
  let lineHasContent = true;
  /** The last byte was a CR: a LF now completes that line end rather than ending another line. */
  let afterCr = false;
  return (chunk) => {
    let largest = pending;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      pending++;
      if (byte === 0x0a && afterCr) {
        afterCr = false;
      } else if (byte === 0x0a || byte === 0x0d) {
        if (!lineHasContent) {
          if (pending > largest) largest = pending;
          pending = 0;
        }
        lineHasContent = false;
        afterCr = byte === 0x0d;
      } else {
        lineHasContent = true;
        afterCr = false;
      }
    }
    return pending > largest ? pending : largest;
  };
}

function refuseRedirect(response: Response): Response {
  if (response.status >= 300 && response.status < 400) {
    void response.body?.cancel();
    throw new Error(`backend answered a redirect (${response.status}); redirects are not followed`);
  }
  return response;
}

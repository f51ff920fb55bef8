/**
 * How many bytes of request bodies may be in the router at once: a body being received is held in
 * memory whole (it is parsed as one JSON text), so without a bound a crowd of slow senders pins
 * `count × BODY_LIMIT_BYTES`. Each request reserves what it announced (or the body limit when it
 * announces nothing) before its body is read, and gives it back once the body is parsed or the
 * request ends; a request that does not fit is refused without reading its body.
 */
export class BodyBudget {
  private held = 0;

  constructor(readonly maxBytes: number) {}

  get heldBytes(): number {
    return this.held;
  }

  /** Reserves `bytes`; false, and nothing reserved, when they do not fit. */
  tryReserve(bytes: number): boolean {
    if (this.held + bytes > this.maxBytes) return false;
    this.held += bytes;
    return true;
  }

  release(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }
}

/** Bodies in flight, in whole bodies of the configured limit (README "Operations"). */
export const BODIES_IN_FLIGHT = 16;

/**
 * What one request reserves: its announced Content-Length, or the body limit for a chunked body
 * (whose size is known only at its end). Above the limit the framework answers 413 without
 * reading, so nothing more than the limit is ever reserved.
 */
export function reservationOf(contentLength: string | undefined, transferEncoding: string | undefined, bodyLimitBytes: number): number {
  if (contentLength !== undefined && /^\d+$/.test(contentLength.trim())) return Math.min(Number(contentLength.trim()), bodyLimitBytes);
  return transferEncoding !== undefined ? bodyLimitBytes : 0;
}

/**
 * The MCP protocol versions this router implements, newest first: its own list, not the SDK's
 * (the SDK's grows with every release, whether or not the router does what the new version asks).
 * docs/protocol-eras.md says what each one gets and why 2025-03-26 is left out (it requires
 * JSON-RPC batches, which this endpoint refuses).
 */
export const PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28', '2025-11-25', '2025-06-18'];

/**
 * Versions served statelessly from per-request `_meta`, without `initialize` (spec 2026-07-28,
 * "Versioning": the "modern" era).
 */
export const MODERN_VERSIONS: readonly string[] = ['2026-07-28'];

/** Versions a client opens with `initialize` (the "legacy" era), newest first. */
export const LEGACY_VERSIONS: readonly string[] = PROTOCOL_VERSIONS.filter((v) => !MODERN_VERSIONS.includes(v));

/** The header a client sends on every request after `initialize` (spec 2025-06-18, Transports), and on every 2026-07-28 POST. */
export const PROTOCOL_VERSION_HEADER = 'mcp-protocol-version';

/**
 * `initialize`: the client's version when the router implements it in the legacy era, else the
 * router's newest legacy version. A client asking `initialize` for 2026-07-28 gets a legacy
 * version: that revision has no handshake, so answering it there would promise a session shape
 * it does not have.
 */
export function negotiateVersion(requested: unknown): string {
  return typeof requested === 'string' && LEGACY_VERSIONS.includes(requested) ? requested : LEGACY_VERSIONS[0];
}

/** True for a version served from per-request `_meta` rather than after `initialize`. */
export function isModernVersion(version: string): boolean {
  return MODERN_VERSIONS.includes(version);
}

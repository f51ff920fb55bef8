/**
 * The MCP protocol versions this router implements, newest first: its own list, not the SDK's
 * (the SDK's grows with every release, whether or not the router does what the new version asks).
 * 2025-03-26 is left out: it requires JSON-RPC batches, which this endpoint refuses.
 */
export const PROTOCOL_VERSIONS: readonly string[] = ['2025-06-18'];

/** The header a client sends on every request after `initialize` (spec 2025-06-18, Transports). */
export const PROTOCOL_VERSION_HEADER = 'mcp-protocol-version';

/** `initialize`: the client's version when the router implements it, else the router's newest. */
export function negotiateVersion(requested: unknown): string {
  return typeof requested === 'string' && PROTOCOL_VERSIONS.includes(requested) ? requested : PROTOCOL_VERSIONS[0];
}

/**
 * The `MCP-Protocol-Version` header of a request after `initialize`: absent is accepted (spec: the
 * server then assumes a version of its choosing, for clients older than the header); present, it
 * must name a version the router implements, else the request is answered 400 (spec: "invalid or
 * unsupported").
 */
export function versionHeaderProblem(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && PROTOCOL_VERSIONS.includes(value.trim())) return undefined;
  return `Bad Request: unsupported MCP-Protocol-Version (supported: ${PROTOCOL_VERSIONS.join(', ')})`;
}

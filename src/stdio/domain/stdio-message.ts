import { ANONYMOUS, type Principal } from '../../common/principal';
import type { StdioConfig } from '../../config/config.types';
import { errorMessage, parseIncoming, type RequestId } from '../../mcp/domain/jsonrpc';
import { PROTOCOL_VERSION_HEADER } from '../../mcp/domain/protocol-versions';
import { METHOD_HEADER, NAME_HEADER, NAME_SOURCE, PROTOCOL_VERSION_META_KEY } from '../../mcp/domain/request-era';

/**
 * The caller of the stdio front end: the local user who launched the process, so no credential is
 * asked for. Access rules apply to the configured `stdio.principal` and its groups, else to the
 * anonymous principal (no groups: it matches only rules for the group `*`).
 */
export function stdioPrincipal(config: StdioConfig | undefined): Principal {
  return config === undefined ? ANONYMOUS : { id: config.principal, groups: config.groups };
}

/**
 * The headers Streamable HTTP would carry with this message. A 2026-07-28 request mirrors its
 * version, method and name (`tools/call`'s tool) into headers, and the endpoint checks that both
 * agree; a stdio message has no headers, it is all there is, so they are read from it. The name is
 * sent Base64-encoded, as the HTTP transport does for any value a header cannot hold as is. A
 * message without the `_meta` version (a 2025 client) needs none, and is not parsed for them.
 */
export function mirroredHeaders(line: string): Record<string, string> {
  if (!line.includes(PROTOCOL_VERSION_META_KEY)) return {};
  const incoming = parseIncoming(line);
  if (incoming.kind !== 'request') return {};
  const version = incoming.params._meta?.[PROTOCOL_VERSION_META_KEY];
  if (typeof version !== 'string') return {};
  const headers: Record<string, string> = { [PROTOCOL_VERSION_HEADER]: version, [METHOD_HEADER]: incoming.method };
  const field = NAME_SOURCE[incoming.method];
  const name = field === undefined ? undefined : incoming.params[field];
  if (typeof name === 'string') headers[NAME_HEADER] = `=?base64?${Buffer.from(name, 'utf8').toString('base64')}?=`;
  return headers;
}

/** Errors the front end itself answers with (JSON-RPC "server error" range and "internal error"). */
export const SHUTTING_DOWN = { code: -32000, message: 'Service Unavailable: the router is shutting down' } as const;
export const INTERNAL_ERROR = { code: -32603, message: 'Internal error' } as const;

/**
 * The id an answer to this line carries: a request's, null for a line that is no readable message
 * (JSON-RPC answers those with a null id), undefined for a notification or a response, which are
 * never answered.
 */
export function answerIdOf(line: string): RequestId | null | undefined {
  const incoming = parseIncoming(line);
  return incoming.kind === 'request' || incoming.kind === 'invalid' ? incoming.id : undefined;
}

/** Requests answered from the router alone, whatever its backends: ping. */
const WITHOUT_BACKENDS = new Set(['ping']);

/**
 * Whether a message's answer depends on the backends (the capabilities the handshake declares, tools,
 * their catalog, resources, prompts): such a message waits until each backend's first connection
 * attempt is over, so a client that starts the router and asks at once does not find it empty.
 * Notifications, answers and lines that are no JSON-RPC request never wait.
 */
export function waitsForBackends(line: string): boolean {
  const incoming = parseIncoming(line);
  return incoming.kind === 'request' && !WITHOUT_BACKENDS.has(incoming.method);
}

/** A JSON-RPC error answer as one line of text. */
export function errorLine(id: RequestId | null, error: { code: number; message: string }): string {
  return JSON.stringify(errorMessage(id, error.code, error.message));
}

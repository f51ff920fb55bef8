import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { backendFailure } from './backend-failures';
import { collectToolPages } from './tool-pages';

/**
 * The wire of a 2026-07-28 ("modern") backend as the router speaks it as a client, pure: no I/O,
 * no clock. See docs/backend-eras.md.
 *
 * Modern MCP has no `initialize` and no session: every request carries the protocol version and
 * the client's capabilities in `params._meta` (spec 2026-07-28, changelog items 1-2), and every
 * Streamable HTTP POST mirrors the method and the tool name into the `Mcp-Method` / `Mcp-Name`
 * headers ("Standard Request Headers").
 */

/** The one modern revision the router speaks to backends. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** `_meta` keys of the 2026-07-28 request envelope (spec "Versioning", "Discovery"). */
export const META_KEYS = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/**
 * Error codes that only a modern server sends (spec 2026-07-28 "Error Codes"): HeaderMismatch,
 * MissingRequiredClientCapability, UnsupportedProtocolVersion. Seeing one proves the backend is
 * modern, so the router must not fall back to `initialize` (spec "Backward Compatibility").
 */
export const MODERN_ERROR_CODES = { headerMismatch: -32020, missingClientCapability: -32021, unsupportedVersion: -32022 } as const;

/** The `_meta` every modern request of the router carries. The router asks nothing of a backend. */
export function requestMeta(clientInfo: { name: string; version: string }): Record<string, unknown> {
  return {
    [META_KEYS.protocolVersion]: MODERN_PROTOCOL_VERSION,
    [META_KEYS.clientCapabilities]: {},
    [META_KEYS.clientInfo]: clientInfo,
  };
}

/**
 * The MCP request headers of one POST (spec "Request Metadata"): the protocol version, the method,
 * and for `tools/call` the tool name, Base64-sentinel-encoded when it is not a plain header value.
 */
export function requestHeaders(method: string, name?: string): Record<string, string> {
  return {
    'mcp-protocol-version': MODERN_PROTOCOL_VERSION,
    'mcp-method': method,
    ...(name !== undefined ? { 'mcp-name': headerValue(name) } : {}),
  };
}

/**
 * A value as it may travel in an MCP header (spec "Value Encoding"): as is when it is visible
 * ASCII and spaces without leading or trailing whitespace; otherwise, or when it looks like the
 * sentinel itself, `=?base64?…?=` of its UTF-8 bytes.
 */
export function headerValue(value: string): string {
  const plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !(value.startsWith('=?base64?') && value.endsWith('?='));
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** What the `server/discover` probe says about a backend's era. */
export type ProbeVerdict =
  /** A DiscoverResult naming 2026-07-28: talk to it the modern way. */
  | { era: 'modern' }
  /** Not a modern answer (a 2025 server's error, 404, 405, a session complaint…): `initialize` it. */
  | { era: 'legacy' }
  /** A modern server that cannot serve the router's version: neither era works, say why. */
  | { era: 'none'; reason: string };

/**
 * The verdict of a `server/discover` probe from the HTTP status and the parsed body (undefined when
 * the body is not JSON). Spec "Streamable HTTP, Backward Compatibility": a recognized modern
 * JSON-RPC error means a modern server (never fall back); anything else means a legacy one. A
 * modern server whose `supported` list names only 2025 versions is served the legacy way.
 */
export function probeVerdict(status: number, body: unknown): ProbeVerdict {
  const message = isObject(body) ? body : undefined;
  const result = message && isObject(message.result) ? message.result : undefined;
  if (status >= 200 && status < 300 && result) {
    const versions = Array.isArray(result.supportedVersions) ? result.supportedVersions : [];
    if (versions.includes(MODERN_PROTOCOL_VERSION)) return { era: 'modern' };
    return versions.some(isLegacyVersion)
      ? { era: 'legacy' }
      : { era: 'none', reason: `backend supports none of the router's protocol versions (it lists ${describeVersions(versions)})` };
  }
  const error = message && isObject(message.error) ? message.error : undefined;
  const code = error?.code;
  if (code === MODERN_ERROR_CODES.unsupportedVersion) {
    const data = isObject(error?.data) ? error.data : {};
    const supported = Array.isArray(data.supported) ? data.supported : [];
    if (supported.some(isLegacyVersion)) return { era: 'legacy' };
    return { era: 'none', reason: `backend does not support protocol ${MODERN_PROTOCOL_VERSION} (it lists ${describeVersions(supported)})` };
  }
  if (code === MODERN_ERROR_CODES.headerMismatch || code === MODERN_ERROR_CODES.missingClientCapability) {
    return { era: 'none', reason: `backend refused the discovery request (JSON-RPC error ${code})` };
  }
  return { era: 'legacy' };
}

/**
 * The connect failure of a 2025 client (`initialize`) refused by a server that speaks only modern
 * versions (spec "Versioning": such a server SHOULD name its versions in the error), or undefined
 * when the error is something else. Names the era, so an operator knows to set `era`.
 */
export function initializeRefusal(code: unknown, data: unknown): string | undefined {
  if (code !== MODERN_ERROR_CODES.unsupportedVersion) return undefined;
  const supported = isObject(data) && Array.isArray(data.supported) ? data.supported : [];
  if (!supported.includes(MODERN_PROTOCOL_VERSION)) return undefined;
  return `backend speaks only MCP 2026-07-28 (it refused initialize and lists ${describeVersions(supported)}); set era: auto or modern`;
}

/** One `tools/list` page of a modern backend, with its freshness hint (spec "Caching"). */
export interface ModernToolsPage {
  tools: unknown[];
  nextCursor?: string;
  /** Absent or negative is 0: immediately stale (spec "Time-to-Live (TTL) Field"). */
  ttlMs: number;
}

/** A `tools/list` result, or undefined when it is not one. */
export function readToolsPage(result: unknown): ModernToolsPage | undefined {
  if (!isObject(result) || !Array.isArray(result.tools)) return undefined;
  if (result.nextCursor !== undefined && typeof result.nextCursor !== 'string') return undefined;
  const ttl = typeof result.ttlMs === 'number' && Number.isFinite(result.ttlMs) && result.ttlMs > 0 ? Math.floor(result.ttlMs) : 0;
  return { tools: result.tools, ...(result.nextCursor !== undefined ? { nextCursor: result.nextCursor } : {}), ttlMs: ttl };
}

/**
 * Every page of a modern backend's `tools/list` (`fetchPage` sends one request and resolves with
 * its JSON-RPC answer), and the smallest `ttlMs` of the pages: a listing is as fresh as its
 * stalest page. The same for every transport; only how a request travels differs.
 */
export async function collectModernTools(
  fetchPage: (params: Record<string, unknown>) => Promise<unknown>,
  backend: string,
): Promise<{ tools: Tool[]; ttlMs: number }> {
  let ttlMs = Number.POSITIVE_INFINITY;
  const tools = await collectToolPages(async (cursor) => {
    const page = readToolsPage(readRpcResult(await fetchPage(cursor === undefined ? {} : { cursor }), backend));
    if (!page) throw new Error(`backend ${backend} sent a malformed tools/list result`);
    ttlMs = Math.min(ttlMs, page.ttlMs);
    return { tools: page.tools as Tool[], ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}) };
  });
  return { tools, ttlMs: Number.isFinite(ttlMs) ? ttlMs : 0 };
}

/** The result of a JSON-RPC answer, or an Error naming the backend and the failure kind only. */
export function readRpcResult(message: unknown, backend: string): unknown {
  if (typeof message !== 'object' || message === null) throw backendFailure.malformed(backend);
  const { result, error } = message as { result?: unknown; error?: { code?: unknown } };
  if (error !== undefined) {
    throw typeof error?.code === 'number' ? backendFailure.jsonRpcError(backend, error.code) : backendFailure.malformed(backend);
  }
  return result;
}

/** Whether a `server/discover` answer says the server announces tool-list changes (spec "Discovery"). */
export function announcesToolChanges(message: unknown): boolean {
  const result = (message as { result?: { capabilities?: { tools?: { listChanged?: unknown } } } } | undefined)?.result;
  return result?.capabilities?.tools?.listChanged === true;
}

/**
 * Whether a message belongs to the `subscriptions/listen` request `id` on a channel every
 * subscription shares (stdio): its final response, or a notification whose `_meta` carries that
 * subscription id. On stdio a client MUST correlate by this field (spec "Subscriptions").
 */
export function belongsToSubscription(message: unknown, id: string): boolean {
  if (!isObject(message)) return false;
  if ('method' in message) {
    const params = isObject(message.params) ? message.params : {};
    const meta = isObject(params._meta) ? params._meta : {};
    return meta[META_KEYS.subscriptionId] === id;
  }
  return message.id === id;
}

/** Bounds of the re-list schedule a modern backend's `ttlMs` sets. */
export const RELIST = {
  /** A shorter TTL is stretched to this: the router does not list a backend more than once a second. */
  minMs: 1_000,
  /** Kept under setTimeout's 2^31-1 ms, and a day is long enough to trust any list. */
  maxMs: 86_400_000,
  /** TTL 0 (or absent) with no change notifications: the router still looks this often. */
  unannouncedMs: 30_000,
  /** Up to this share is added at random (spec "Freshness Calculation": polling MUST jitter). */
  jitter: 0.1,
} as const;

/**
 * When to list a modern backend's tools again, from the `ttlMs` of its last listing; undefined
 * for never (a TTL of 0 while the backend announces changes on a `subscriptions/listen` stream:
 * the announcement is the signal). `random` is in [0, 1).
 *
 * Why a schedule at all, when the spec says a client SHOULD NOT poll on TTL but re-fetch on use:
 * the router's catalog is in use all the time (every find_tool ranks it), so "on use" is
 * "always"; re-listing when the TTL runs out is the same freshness without making a caller wait
 * for a listing. The jitter is the one the spec demands of clients that poll.
 */
export function relistDelayMs(ttlMs: number, listening: boolean, random: number): number | undefined {
  let base: number;
  if (ttlMs > 0) base = Math.min(Math.max(ttlMs, RELIST.minMs), RELIST.maxMs);
  else if (listening) return undefined;
  else base = RELIST.unannouncedMs;
  return Math.min(Math.round(base * (1 + RELIST.jitter * random)), RELIST.maxMs);
}

/** What one message on a `subscriptions/listen` stream means to the router. */
export type ListenEvent =
  | { kind: 'acknowledged'; toolsListChanged: boolean }
  | { kind: 'tools_changed' }
  /** The server ended the subscription gracefully (spec "Graceful Closure"). */
  | { kind: 'closed' }
  | { kind: 'other' };

/** Reads one message of the listen stream opened by request `id`. */
export function readListenEvent(message: unknown, id: string): ListenEvent {
  if (!isObject(message)) return { kind: 'other' };
  if (message.id === id && ('result' in message || 'error' in message)) return { kind: 'closed' };
  const params = isObject(message.params) ? message.params : {};
  const meta = isObject(params._meta) ? params._meta : {};
  // On HTTP each stream is its own subscription; the id check guards a server that mixes them.
  if (meta[META_KEYS.subscriptionId] !== undefined && meta[META_KEYS.subscriptionId] !== id) return { kind: 'other' };
  if (message.method === 'notifications/subscriptions/acknowledged') {
    const granted = isObject(params.notifications) ? params.notifications : {};
    return { kind: 'acknowledged', toolsListChanged: granted.toolsListChanged === true };
  }
  if (message.method === 'notifications/tools/list_changed') return { kind: 'tools_changed' };
  return { kind: 'other' };
}

function isLegacyVersion(version: unknown): boolean {
  return typeof version === 'string' && version < MODERN_PROTOCOL_VERSION && /^\d{4}-\d{2}-\d{2}$/.test(version);
}

function describeVersions(versions: unknown[]): string {
  const shown = versions.filter((v): v is string => typeof v === 'string').slice(0, 5);
  return shown.length === 0 ? 'none' : shown.join(', ');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One `x-mcp-header` annotation of a tool: the `Mcp-Param-{name}` header and the argument path. */
export interface ParamHeader {
  header: string;
  path: string[];
}

/** RFC 9110 field-name token (`1*tchar`). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);

/**
 * The `x-mcp-header` annotations of a tool's `inputSchema` (spec 2026-07-28, Streamable HTTP,
 * "Custom Headers from Tool Parameters"), or why the tool definition is invalid: a client MUST
 * leave such a tool out of its listing. Valid: a non-empty token, unique without regard to case, on
 * a string, integer or boolean property reached from the root through `properties` keys only.
 */
export function paramHeadersOf(inputSchema: unknown): ParamHeader[] | { invalid: string } {
  const found: ParamHeader[] = [];
  const problems: string[] = [];
  const reachable = new Set<unknown>();
  const walk = (schema: unknown, path: string[]): void => {
    if (!isObject(schema) || !isObject(schema.properties)) return;
    for (const [key, property] of Object.entries(schema.properties)) {
      if (!isObject(property)) continue;
      const at = [...path, key];
      if ('x-mcp-header' in property) {
        reachable.add(property);
        const name = property['x-mcp-header'];
        if (typeof name !== 'string' || !TOKEN.test(name)) problems.push(`x-mcp-header of ${at.join('.')} is not a header name`);
        else if (typeof property.type !== 'string' || !HEADER_TYPES.has(property.type)) problems.push(`x-mcp-header on ${at.join('.')}, which is not a string, integer or boolean`);
        else if (found.some((h) => h.header.toLowerCase() === name.toLowerCase())) problems.push(`x-mcp-header ${name} is used twice`);
        else found.push({ header: name, path: at });
      }
      walk(property, at);
    }
  };
  walk(inputSchema, []);
  // An annotation anywhere else (under items, oneOf, $ref targets…) makes the definition invalid.
  const stray = (node: unknown, inProperties: boolean): boolean => {
    if (Array.isArray(node)) return node.some((n) => stray(n, false));
    if (!isObject(node)) return false;
    if (!inProperties && 'x-mcp-header' in node && !reachable.has(node)) return true;
    return Object.entries(node).some(([key, child]) => (inProperties ? stray(child, false) : key !== 'x-mcp-header' && stray(child, key === 'properties')));
  };
  if (stray(inputSchema, false)) problems.push('x-mcp-header outside a chain of properties');
  return problems.length > 0 ? { invalid: problems[0] } : found;
}

/**
 * The `Mcp-Param-*` headers of one call: each annotated argument that is present, as its string
 * form (spec "Value Encoding"); a missing or null value has no header.
 */
export function paramHeaderValues(headers: readonly ParamHeader[], args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { header, path } of headers) {
    let value: unknown = args;
    for (const key of path) value = isObject(value) ? value[key] : undefined;
    if (typeof value === 'string') out[`mcp-param-${header.toLowerCase()}`] = headerValue(value);
    else if (typeof value === 'boolean') out[`mcp-param-${header.toLowerCase()}`] = String(value);
    else if (typeof value === 'number' && Number.isSafeInteger(value)) out[`mcp-param-${header.toLowerCase()}`] = String(value);
  }
  return out;
}

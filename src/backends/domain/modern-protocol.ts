import { ToolAnnotationsSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { backendFailure } from './backend-failures';
import { collectToolPages } from './tool-pages';
import { JsonObjectSchema } from './wire';

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

/** One kind a server declares in its capabilities (an object), and whether it announces list changes. */
const DeclaredKindSchema = z
  .object({ listChanged: z.unknown().optional() })
  .transform((kind) => ({ listChanged: kind.listChanged === true }))
  .optional()
  .catch(undefined);

/**
 * A `server/discover` answer (spec "Discovery"), as far as the era probe and the router read it.
 * Every field falls back to "absent", so any JSON (or none) reads: a body that is not a modern
 * answer is itself the probe's evidence.
 */
const DiscoverAnswerSchema = z
  .object({
    result: z
      .object({
        supportedVersions: z.array(z.unknown()).catch([]),
        capabilities: z
          .object({ tools: DeclaredKindSchema, resources: DeclaredKindSchema, prompts: DeclaredKindSchema })
          .catch({ tools: undefined, resources: undefined, prompts: undefined }),
      })
      .optional()
      .catch(undefined),
    error: z
      .object({
        code: z.unknown(),
        data: z.object({ supported: z.array(z.unknown()).catch([]) }).catch({ supported: [] }),
      })
      .optional()
      .catch(undefined),
  })
  .catch({});

/** What a `server/discover` answer says: the versions and tool-change announcements of a result, or an error's code. */
export type DiscoverAnswer = z.infer<typeof DiscoverAnswerSchema>;

/** Reads a `server/discover` answer (undefined when the body was not JSON). */
export function readDiscoverAnswer(message: unknown): DiscoverAnswer {
  return DiscoverAnswerSchema.parse(message);
}

/**
 * The list-change notifications a client asks of `subscriptions/listen` (spec "Subscriptions",
 * `SubscriptionFilter`): those the server's discovery announced; undefined when it announced none,
 * so no subscription is opened.
 */
export type ListenFilter = Partial<Record<'toolsListChanged' | 'resourcesListChanged' | 'promptsListChanged', true>>;

/** The subscription filter for what a `server/discover` answer announces, or undefined for none. */
export function listenFilterOf(answer: DiscoverAnswer): ListenFilter | undefined {
  const declared = answer.result?.capabilities;
  const filter: ListenFilter = {
    ...(declared?.tools?.listChanged ? { toolsListChanged: true as const } : {}),
    ...(declared?.resources?.listChanged ? { resourcesListChanged: true as const } : {}),
    ...(declared?.prompts?.listChanged ? { promptsListChanged: true as const } : {}),
  };
  return Object.keys(filter).length > 0 ? filter : undefined;
}

/**
 * The verdict of a `server/discover` probe from the HTTP status and the answer. Spec "Streamable
 * HTTP, Backward Compatibility": a recognized modern JSON-RPC error means a modern server (never
 * fall back); anything else means a legacy one. A modern server whose `supported` list names only
 * 2025 versions is served the legacy way.
 */
export function probeVerdict(status: number, answer: DiscoverAnswer): ProbeVerdict {
  const { result, error } = answer;
  if (status >= 200 && status < 300 && result) {
    const versions = result.supportedVersions;
    if (versions.includes(MODERN_PROTOCOL_VERSION)) return { era: 'modern' };
    return versions.some(isLegacyVersion)
      ? { era: 'legacy' }
      : { era: 'none', reason: `backend supports none of the router's protocol versions (it lists ${describeVersions(versions)})` };
  }
  const code = error?.code;
  if (code === MODERN_ERROR_CODES.unsupportedVersion) {
    const supported = error?.data.supported ?? [];
    if (supported.some(isLegacyVersion)) return { era: 'legacy' };
    return { era: 'none', reason: `backend does not support protocol ${MODERN_PROTOCOL_VERSION} (it lists ${describeVersions(supported)})` };
  }
  if (code === MODERN_ERROR_CODES.headerMismatch || code === MODERN_ERROR_CODES.missingClientCapability) {
    return { era: 'none', reason: `backend refused the discovery request (JSON-RPC error ${code})` };
  }
  return { era: 'legacy' };
}

/** The `data` of an UnsupportedProtocolVersion error: the versions the server speaks. */
const RefusalDataSchema = z.object({ supported: z.array(z.unknown()) }).catch({ supported: [] });

/**
 * The connect failure of a 2025 client (`initialize`) refused by a server that speaks only modern
 * versions (spec "Versioning": such a server SHOULD name its versions in the error), or undefined
 * when the error is something else. Names the era, so an operator knows to set `era`.
 */
export function initializeRefusal(code: unknown, data: unknown): string | undefined {
  if (code !== MODERN_ERROR_CODES.unsupportedVersion) return undefined;
  const { supported } = RefusalDataSchema.parse(data);
  if (!supported.includes(MODERN_PROTOCOL_VERSION)) return undefined;
  return `backend speaks only MCP 2026-07-28 (it refused initialize and lists ${describeVersions(supported)}); set era: auto or modern`;
}

/**
 * One tool of a modern backend's listing: what the catalog reads, typed; the rest kept as sent
 * (loose), since a 2026 tool may carry fields this router does not know. Annotations that break
 * the spec's types are dropped (the gate then reads no hints) rather than failing the listing.
 */
export const ModernToolSchema = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
  inputSchema: JsonObjectSchema,
  outputSchema: JsonObjectSchema.optional(),
  annotations: ToolAnnotationsSchema.optional().catch(undefined),
});

/** A tool of a modern backend's listing, parsed. */
export type ModernTool = z.infer<typeof ModernToolSchema>;

/**
 * One `tools/list` page of a modern backend, with its freshness hint (spec "Caching"): an absent,
 * zero or negative `ttlMs` is 0, immediately stale (spec "Time-to-Live (TTL) Field").
 */
const ToolsPageSchema = z.object({
  tools: z.array(ModernToolSchema),
  nextCursor: z.string().optional(),
  ttlMs: z.number().positive().transform(Math.floor).catch(0),
});

/** One `tools/list` page of a modern backend, parsed. */
export type ModernToolsPage = z.infer<typeof ToolsPageSchema>;

/** A `tools/list` result, or undefined when it is not one. */
export function readToolsPage(result: unknown): ModernToolsPage | undefined {
  const page = ToolsPageSchema.safeParse(result);
  return page.success ? page.data : undefined;
}

/**
 * Every page of a modern backend's `tools/list` (`fetchPage` sends one request and resolves with
 * its JSON-RPC answer), and the smallest `ttlMs` of the pages: a listing is as fresh as its
 * stalest page. The same for every transport; only how a request travels differs.
 */
export async function collectModernTools(
  fetchPage: (params: Record<string, unknown>) => Promise<unknown>,
  backend: string,
): Promise<{ tools: ModernTool[]; ttlMs: number }> {
  let ttlMs = Number.POSITIVE_INFINITY;
  const tools = await collectToolPages(async (cursor) => {
    const page = readToolsPage(readRpcResult(await fetchPage(cursor === undefined ? {} : { cursor }), backend));
    if (!page) throw new Error(`backend ${backend} sent a malformed tools/list result`);
    ttlMs = Math.min(ttlMs, page.ttlMs);
    return page;
  });
  return { tools, ttlMs: Number.isFinite(ttlMs) ? ttlMs : 0 };
}

/** A JSON-RPC answer outside the hot path: its result, or its error's code. */
const RpcAnswerSchema = z.object({
  result: z.unknown().optional(),
  error: z.unknown().optional(),
});

/** The error of such an answer: its code, never its message. */
const RpcErrorSchema = z.object({ code: z.number() });

/** The result of a JSON-RPC answer, or an Error naming the backend and the failure kind only. */
export function readRpcResult(message: unknown, backend: string): unknown {
  const answer = RpcAnswerSchema.safeParse(message);
  if (!answer.success) throw backendFailure.malformed(backend);
  const { result, error } = answer.data;
  if (error !== undefined) {
    const parsed = RpcErrorSchema.safeParse(error);
    throw parsed.success ? backendFailure.jsonRpcError(backend, parsed.data.code) : backendFailure.malformed(backend);
  }
  return result;
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

/**
 * A message on a `subscriptions/listen` stream (or, on stdio, on the pipe every subscription
 * shares), as far as the router reads it. Every field falls back to "absent", so any JSON reads.
 */
const ListenMessageSchema = z.object({
  id: z.unknown().optional(),
  method: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
  params: z
    .object({
      _meta: z.object({ [META_KEYS.subscriptionId]: z.unknown().optional() }).catch({}),
      notifications: z
        .object({ toolsListChanged: z.unknown().optional(), resourcesListChanged: z.unknown().optional(), promptsListChanged: z.unknown().optional() })
        .catch({}),
    })
    .catch({ _meta: {}, notifications: {} }),
});

/** A message read as a listen stream's, or undefined when it is not a JSON object. */
export type ListenMessage = z.infer<typeof ListenMessageSchema>;

/** Reads one message of a listen stream; undefined when it is not a JSON object. */
export function readListenMessage(message: unknown): ListenMessage | undefined {
  const parsed = ListenMessageSchema.safeParse(message);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Whether a message belongs to the `subscriptions/listen` request `id` on a channel every
 * subscription shares (stdio): its final response, or a notification whose `_meta` carries that
 * subscription id. On stdio a client MUST correlate by this field (spec "Subscriptions").
 */
export function belongsToSubscription(message: ListenMessage, id: string): boolean {
  if (message.method !== undefined) return message.params._meta[META_KEYS.subscriptionId] === id;
  return message.id === id;
}

/** What one message on a `subscriptions/listen` stream means to the router. */
export type ListenEvent =
  /** What the server granted of the filter asked for (spec "notifications/subscriptions/acknowledged"). */
  | { kind: 'acknowledged'; toolsListChanged: boolean; offeringsListChanged: boolean }
  | { kind: 'tools_changed' }
  | { kind: 'offerings_changed'; offering: 'resources' | 'prompts' }
  /** The server ended the subscription gracefully (spec "Graceful Closure"). */
  | { kind: 'closed' }
  | { kind: 'other' };

/** What one message of the listen stream opened by request `id` means. */
export function listenEventOf(message: ListenMessage | undefined, id: string): ListenEvent {
  if (!message) return { kind: 'other' };
  if (message.id === id && (message.result !== undefined || message.error !== undefined)) return { kind: 'closed' };
  const subscription = message.params._meta[META_KEYS.subscriptionId];
  // On HTTP each stream is its own subscription; the id check guards a server that mixes them.
  if (subscription !== undefined && subscription !== id) return { kind: 'other' };
  if (message.method === 'notifications/subscriptions/acknowledged') {
    const granted = message.params.notifications;
    return {
      kind: 'acknowledged',
      toolsListChanged: granted.toolsListChanged === true,
      offeringsListChanged: granted.resourcesListChanged === true || granted.promptsListChanged === true,
    };
  }
  if (message.method === 'notifications/tools/list_changed') return { kind: 'tools_changed' };
  if (message.method === 'notifications/resources/list_changed') return { kind: 'offerings_changed', offering: 'resources' };
  if (message.method === 'notifications/prompts/list_changed') return { kind: 'offerings_changed', offering: 'prompts' };
  return { kind: 'other' };
}

/** Reads one message of the listen stream opened by request `id`. */
export function readListenEvent(message: unknown, id: string): ListenEvent {
  return listenEventOf(readListenMessage(message), id);
}

function isLegacyVersion(version: unknown): boolean {
  return typeof version === 'string' && version < MODERN_PROTOCOL_VERSION && /^\d{4}-\d{2}-\d{2}$/.test(version);
}

function describeVersions(versions: unknown[]): string {
  const shown = versions.filter((v): v is string => typeof v === 'string').slice(0, 5);
  return shown.length === 0 ? 'none' : shown.join(', ');
}

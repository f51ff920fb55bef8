import type { SpanAttributes, SpanStart, TraceCarrier } from '../tracing';

/**
 * Attribute names: the OpenTelemetry semantic conventions for MCP and GenAI where they have one
 * (`mcp.*`, `gen_ai.*`, `jsonrpc.*`, `error.type`, `network.*`, `server.*`), the router's own under
 * `centralmcp.` where they do not. Values are names, counts and closed codes: never arguments,
 * results or query text (architecture §10).
 */
export const ATTR = {
  method: 'mcp.method.name',
  protocolVersion: 'mcp.protocol.version',
  requestId: 'jsonrpc.request.id',
  toolName: 'gen_ai.tool.name',
  operation: 'gen_ai.operation.name',
  errorType: 'error.type',
  transport: 'network.transport',
  protocolName: 'network.protocol.name',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  httpStatus: 'http.response.status_code',
  entrypoint: 'centralmcp.entrypoint',
  backend: 'centralmcp.backend',
  status: 'centralmcp.status',
  batchSize: 'centralmcp.batch.size',
  batchIndex: 'centralmcp.batch.index',
  batchSucceeded: 'centralmcp.batch.succeeded',
  batchFailed: 'centralmcp.batch.failed',
  hits: 'centralmcp.find_tool.hits',
  topK: 'centralmcp.find_tool.top_k',
  round: 'centralmcp.round',
} as const;

/**
 * Attributes written as object literals whose keys are the names above, checked (`satisfies`), so
 * a misspelt name does not compile. Literal keys, not `[ATTR.x]`: V8 builds such an object from
 * one template, where computed keys and keys added afterwards take its runtime's slow path, on
 * every span. A value left `undefined` is an attribute the span does not get (the SDK skips it),
 * so each builder makes one shape whatever it is given.
 */
export type NamedAttributes = { readonly [K in (typeof ATTR)[keyof typeof ATTR]]?: string | number | boolean | undefined };

/** `error.type` of a tool result with `isError: true` (MCP semantic conventions). */
export const TOOL_ERROR = 'tool_error';
/** The event a backend call records for each `input_required` round (spec 2026-07-28, multi round-trip requests). */
export const INPUT_REQUIRED_EVENT = 'mcp.input_required';
/** Longest tool name put in an attribute: the catalog's own bound (architecture §4). */
const MAX_NAME_CHARS = 200;

/** What the endpoint knows of one JSON-RPC request when its span starts. */
export interface RequestFacts {
  method: string;
  id: string | number;
  /** The protocol version the request was served in, when it named one. */
  protocolVersion?: string;
  /** `params.name` of a `tools/call`. */
  toolName?: unknown;
  /** `params._meta` as sent. */
  meta?: unknown;
  /** The HTTP request's `traceparent` and `tracestate` headers. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The tools the router publishes: only these name a span (a span name must stay a small set). */
  published: ReadonlySet<string>;
}

/**
 * The server span of one request at `/mcp` (MCP semantic conventions, "Server"): named
 * `{method} {tool}` for a published tool, else `{method}`. Its parent is the caller's context from
 * `params._meta` (the MCP carrier), else from the HTTP headers; when both are there and differ, the
 * HTTP one is a link.
 */
export function requestSpan(r: RequestFacts): SpanStart {
  const tool = typeof r.toolName === 'string' && r.toolName.length <= MAX_NAME_CHARS ? r.toolName : undefined;
  const attributes = {
    'mcp.method.name': r.method,
    'jsonrpc.request.id': String(r.id),
    'network.transport': 'tcp',
    'network.protocol.name': 'http',
    'mcp.protocol.version': r.protocolVersion,
    'gen_ai.operation.name': r.method === 'tools/call' ? 'execute_tool' : undefined,
    'gen_ai.tool.name': tool,
  } satisfies NamedAttributes;
  const fromMeta = carrierOf(r.meta);
  const fromHeaders =
    r.headers.traceparent === undefined ? undefined : carrierOf({ traceparent: first(r.headers.traceparent), tracestate: first(r.headers.tracestate) });
  const start: SpanStart = {
    name: tool !== undefined && r.published.has(tool) ? `${r.method} ${tool}` : r.method,
    kind: 'server',
    attributes,
    parent: fromMeta ?? fromHeaders ?? NO_CARRIER,
  };
  if (fromMeta !== undefined && fromHeaders !== undefined && fromHeaders.traceparent !== fromMeta.traceparent) start.link = fromHeaders;
  return start;
}

/** The carrier of a request that continues no trace. */
const NO_CARRIER: TraceCarrier = Object.freeze({});

/** What the request span says of the answer: a JSON-RPC error's code, or an HTTP status other than 200. */
export function answerAttributes(status: number, body: unknown): SpanAttributes | undefined {
  const code = errorCodeOf(body);
  if (code === undefined && status === 200) return undefined;
  return {
    'http.response.status_code': status !== 200 ? status : undefined,
    'error.type': code !== undefined ? String(code) : undefined,
  } satisfies NamedAttributes;
}

/** The span of one call through the dispatch seam, named by its entrypoint (the tool is known once resolved). */
export function toolCallSpan(entrypoint: string, batchIndex?: number): SpanStart {
  const attributes = {
    'centralmcp.entrypoint': entrypoint,
    'gen_ai.operation.name': 'execute_tool',
    'centralmcp.batch.index': batchIndex,
  } satisfies NamedAttributes;
  return { name: entrypoint, kind: 'internal', attributes };
}

/** How a call through the seam ended: the tool and backend it resolved to, its status and, failed, its code. */
export function callOutcomeAttributes(o: { tool: string | null; server: string | null; status: string; code?: string }): SpanAttributes {
  return {
    'centralmcp.status': o.status,
    'gen_ai.tool.name': o.tool !== null && o.tool.length <= MAX_NAME_CHARS ? o.tool : undefined,
    'centralmcp.backend': o.server ?? undefined,
    'error.type': o.code,
  } satisfies NamedAttributes;
}

/** The span of a whole `invoke_read_tool_batch`: its entries' spans are its children. */
export function batchSpan(): SpanStart {
  return { name: 'invoke_read_tool_batch', kind: 'internal', attributes: { 'centralmcp.entrypoint': 'batch' } satisfies NamedAttributes };
}

/**
 * What every client span of one backend's calls says alike: the backend, the method and where it
 * is reached. Worked out once per config, not per call, and shared by those spans.
 */
export interface BackendAddress {
  readonly attributes: SpanAttributes;
}

/** A backend's client span attributes, with its transport as the MCP semantic conventions record it ("Recording MCP transport"). */
export function backendAddress(backend: string, where: { transport: 'stdio' } | { transport: 'http' | 'sse'; url: string }): BackendAddress {
  const call = backendCallAttributes(backend);
  if (where.transport === 'stdio') return { attributes: Object.freeze({ ...call, 'network.transport': 'pipe' } satisfies NamedAttributes) };
  const url = new URL(where.url);
  return {
    attributes: Object.freeze({
      ...call,
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'server.address': url.hostname,
      'server.port': url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
    } satisfies NamedAttributes),
  };
}

/**
 * The client span of one `tools/call` to a backend (MCP semantic conventions, "Client"): its
 * backend's shared attributes and the tool. A backend the config no longer names (a call that
 * outlived a reload) is named without its address.
 */
export function backendCallSpan(backend: string, tool: string, address: BackendAddress | undefined): SpanStart {
  return {
    name: `tools/call ${tool}`,
    kind: 'client',
    shared: address?.attributes ?? backendCallAttributes(backend),
    attributes: { 'gen_ai.tool.name': tool } satisfies NamedAttributes,
    leaf: true,
  };
}

/** What every client span to `backend` says, wherever the backend is reached. */
function backendCallAttributes(backend: string) {
  return { 'mcp.method.name': 'tools/call', 'gen_ai.operation.name': 'execute_tool', 'centralmcp.backend': backend } satisfies NamedAttributes;
}

/** The span of one `find_tool` search; its hit count is set when it ends. */
export function findToolSpan(topK: number): SpanStart {
  return {
    name: 'find_tool',
    kind: 'internal',
    attributes: { 'centralmcp.entrypoint': 'find_tool', 'centralmcp.find_tool.top_k': topK } satisfies NamedAttributes,
  };
}

/**
 * A W3C carrier from a `_meta` object or header values: only string fields, and only with a
 * `traceparent` (a `tracestate` alone continues nothing).
 */
export function carrierOf(source: unknown): TraceCarrier | undefined {
  if (source === null || typeof source !== 'object') return undefined;
  const { traceparent, tracestate } = source as Record<string, unknown>;
  if (typeof traceparent !== 'string') return undefined;
  return typeof tracestate === 'string' ? { traceparent, tracestate } : { traceparent };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The code of a JSON-RPC error message (a number, or a string some servers send). */
function errorCodeOf(body: unknown): number | string | undefined {
  if (body === null || typeof body !== 'object' || !('error' in body)) return undefined;
  const { error } = body;
  if (error === null || typeof error !== 'object' || !('code' in error)) return undefined;
  return typeof error.code === 'number' || typeof error.code === 'string' ? error.code : undefined;
}

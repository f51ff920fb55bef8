import type { RequestParams } from './jsonrpc';
import { PROTOCOL_VERSIONS, PROTOCOL_VERSION_HEADER } from './protocol-versions';
import { PROTOCOL_VERSION_META_KEY, type HeaderBag } from './request-era';

/** The version label of a message that claims a version the router does not list (or a non-string). */
export const UNSUPPORTED_VERSION_LABEL = 'unsupported';
/** The version label of a message that claims none: a 2025 client older than the header, say. */
export const NO_VERSION_LABEL = 'none';
/** The method label of any method the router does not serve: a client's string never becomes a label. */
export const OTHER_METHOD_LABEL = 'other';

/**
 * The version labels of `mcp_requests_total`, in a fixed order: the listed versions, then
 * `unsupported` and `none`. Closed, so the series stay bounded whatever clients send.
 */
export const VERSION_LABELS: readonly string[] = [...PROTOCOL_VERSIONS, UNSUPPORTED_VERSION_LABEL, NO_VERSION_LABEL];

/**
 * The method labels: every method either era serves (docs/protocol-eras.md), the legacy
 * handshake's notification, and `other` last.
 */
export const METHOD_LABELS: readonly string[] = [
  'initialize',
  'notifications/initialized',
  'ping',
  'server/discover',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  OTHER_METHOD_LABEL,
];

const UNSUPPORTED_INDEX = VERSION_LABELS.indexOf(UNSUPPORTED_VERSION_LABEL);
const NONE_INDEX = VERSION_LABELS.indexOf(NO_VERSION_LABEL);
const OTHER_INDEX = METHOD_LABELS.indexOf(OTHER_METHOD_LABEL);
const METHOD_INDEX: ReadonlyMap<string, number> = new Map(METHOD_LABELS.map((method, index) => [method, index]));

/**
 * The protocol version one message claims, as sent (not yet checked): the 2026-07-28 `_meta`
 * version when there is one, else the `MCP-Protocol-Version` header, except on `initialize`, whose
 * version is its `params.protocolVersion` (the header is not read there, spec 2025-06-18
 * "Protocol Version Header"). Undefined when it claims none. Plain lookups: it runs on every message.
 */
export function claimedVersion(headers: HeaderBag, method: string, params: RequestParams | undefined): unknown {
  const claimed = params?._meta?.[PROTOCOL_VERSION_META_KEY];
  if (claimed !== undefined) return claimed;
  return method === 'initialize' ? params?.protocolVersion : headers[PROTOCOL_VERSION_HEADER];
}

/** The index in `VERSION_LABELS` of a claimed version: a listed one, `unsupported`, or `none`. */
export function versionLabelIndex(claimed: unknown): number {
  if (claimed === undefined) return NONE_INDEX;
  const index = typeof claimed === 'string' ? PROTOCOL_VERSIONS.indexOf(claimed) : -1;
  return index === -1 ? UNSUPPORTED_INDEX : index;
}

/** The index in `METHOD_LABELS` of a JSON-RPC method: a served one, or `other`. */
export function methodLabelIndex(method: string): number {
  return METHOD_INDEX.get(method) ?? OTHER_INDEX;
}

import type { RequestParams } from './jsonrpc';
import { isModernVersion, PROTOCOL_VERSION_HEADER, PROTOCOL_VERSIONS } from './protocol-versions';

/** Reserved `_meta` keys of a 2026-07-28 request (spec 2026-07-28, "Base Protocol", `_meta`). */
export const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';

/** Body fields mirrored into headers (spec 2026-07-28, Streamable HTTP, "Standard Request Headers"). */
export const METHOD_HEADER = 'mcp-method';
export const NAME_HEADER = 'mcp-name';
export const NAME_SOURCE: Readonly<Record<string, string>> = { 'tools/call': 'name', 'resources/read': 'uri', 'prompts/get': 'name' };

/** Error codes the 2026-07-28 revision defines (spec 2026-07-28, "Base Protocol", Error Codes). */
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
const INVALID_PARAMS = -32602;

/** How much of a header or body value an error message quotes back. */
const MAX_QUOTED_CHARS = 80;

export type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

/** A refusal before any method runs: always HTTP 400, a JSON-RPC error the client can act on. */
export interface EraRefusal {
  era: 'refused';
  code: number;
  message: string;
  data?: unknown;
}

/**
 * Which era serves a request. `legacy`: the 2025 shape (after `initialize`, version in the header
 * only). `modern`: the 2026-07-28 shape, version and capabilities in this request's `_meta`.
 */
export type EraSelection = { era: 'legacy' } | { era: 'modern'; version: string } | EraRefusal;

/**
 * Reads the era of one request from its headers and body, checking what the era asks of both
 * (spec 2026-07-28, "Versioning" and Streamable HTTP "Server Validation"). Plain checks, no
 * schema library: it runs on every request.
 *
 * - A `_meta` protocol version makes the request modern: the version must be implemented (else
 *   `UnsupportedProtocolVersion` listing the router's versions), the `MCP-Protocol-Version` and
 *   `Mcp-Method` headers must be present and equal the body, `Mcp-Name` too for `tools/call`,
 *   and `clientCapabilities` must be an object (else Invalid params).
 * - Without it the request is legacy: a present `MCP-Protocol-Version` must name an implemented
 *   legacy version (a 2026-07-28 header without the `_meta` envelope is a malformed modern
 *   request). `Mcp-Method`/`Mcp-Name` are not required there, but a present one must match the
 *   body all the same: an intermediary may have routed on it.
 */
export function selectEra(headers: HeaderBag, method: string, params: RequestParams): EraSelection {
  const headerVersion = headers[PROTOCOL_VERSION_HEADER];
  const meta = params._meta;
  const claimed = meta?.[PROTOCOL_VERSION_META_KEY];
  if (claimed === undefined) {
    if (headerVersion !== undefined && method !== 'initialize') {
      if (typeof headerVersion !== 'string' || !PROTOCOL_VERSIONS.includes(headerVersion)) return unsupportedVersion(headerVersion);
      if (isModernVersion(headerVersion)) {
        return invalidParams(
          `Invalid params: a ${headerVersion} request carries \`${PROTOCOL_VERSION_META_KEY}\` and \`${CLIENT_CAPABILITIES_META_KEY}\` in params._meta`,
        );
      }
    }
    return mirroredHeadersProblem(headers, method, params, false) ?? { era: 'legacy' };
  }
  if (typeof claimed !== 'string') return invalidParams(`Invalid params: \`_meta["${PROTOCOL_VERSION_META_KEY}"]\` must be a string`);
  if (!PROTOCOL_VERSIONS.includes(claimed)) return unsupportedVersion(claimed);
  if (headerVersion === undefined) return mismatch('the MCP-Protocol-Version header is missing');
  if (headerVersion !== claimed) return mismatch(`MCP-Protocol-Version header value ${quote(headerVersion)} does not match body value ${quote(claimed)}`);
  if (!isModernVersion(claimed)) return mirroredHeadersProblem(headers, method, params, false) ?? { era: 'legacy' };
  const capabilities = meta?.[CLIENT_CAPABILITIES_META_KEY];
  if (capabilities === null || typeof capabilities !== 'object' || Array.isArray(capabilities)) {
    return invalidParams(`Invalid params: \`_meta["${CLIENT_CAPABILITIES_META_KEY}"]\` is required and must be an object`);
  }
  return mirroredHeadersProblem(headers, method, params, true) ?? { era: 'modern', version: claimed };
}

/**
 * A notification's `MCP-Protocol-Version`, when present, must name an implemented version; the
 * 2026-07-28 revision defines no header or `_meta` rules for notification POSTs beyond that.
 */
export function notificationVersionProblem(headers: HeaderBag): EraRefusal | undefined {
  const version = headers[PROTOCOL_VERSION_HEADER];
  return version === undefined || (typeof version === 'string' && PROTOCOL_VERSIONS.includes(version)) ? undefined : unsupportedVersion(version);
}

/** `Mcp-Method` and `Mcp-Name` against the body; `required` in the modern era. */
function mirroredHeadersProblem(headers: HeaderBag, method: string, params: RequestParams, required: boolean): EraRefusal | undefined {
  const methodHeader = headers[METHOD_HEADER];
  if (methodHeader === undefined) {
    if (required) return mismatch('the Mcp-Method header is missing');
  } else if (methodHeader !== method) {
    return mismatch(`Mcp-Method header value ${quote(methodHeader)} does not match body value ${quote(method)}`);
  }
  const field = NAME_SOURCE[method];
  if (field === undefined) return undefined;
  const bodyName = params[field];
  const nameHeader = headers[NAME_HEADER];
  if (nameHeader === undefined) return required && typeof bodyName === 'string' ? mismatch('the Mcp-Name header is missing') : undefined;
  const decoded = typeof nameHeader === 'string' ? decodeHeaderValue(nameHeader) : undefined;
  if (decoded === undefined) return mismatch('the Mcp-Name header is malformed');
  if (decoded !== bodyName) return mismatch(`Mcp-Name header value ${quote(decoded)} does not match body value ${quote(bodyName)}`);
  return undefined;
}

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * A mirrored header value as the body holds it: `=?base64?…?=` decoded from UTF-8 Base64
 * (spec 2026-07-28, Streamable HTTP "Value Encoding"), anything else as is; undefined when the
 * sentinel wraps something that is not Base64.
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (!value.startsWith(SENTINEL_PREFIX) || !value.endsWith(SENTINEL_SUFFIX) || value.length < SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length) return value;
  const encoded = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0) return undefined;
  return Buffer.from(encoded, 'base64').toString('utf8');
}

function unsupportedVersion(requested: unknown): EraRefusal {
  return {
    era: 'refused',
    code: UNSUPPORTED_PROTOCOL_VERSION,
    message: `Unsupported protocol version (supported: ${PROTOCOL_VERSIONS.join(', ')})`,
    data: {
      supported: PROTOCOL_VERSIONS,
      requested: typeof requested === 'string' ? requested.slice(0, MAX_QUOTED_CHARS) : String(requested).slice(0, MAX_QUOTED_CHARS),
    },
  };
}

function mismatch(detail: string): EraRefusal {
  return { era: 'refused', code: HEADER_MISMATCH, message: `Header mismatch: ${detail}` };
}

function invalidParams(message: string): EraRefusal {
  return { era: 'refused', code: INVALID_PARAMS, message };
}

function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return JSON.stringify(text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS)}…` : text);
}

import type { AuthFailure, AuthFailureReason } from '../auth.types';

/** The protection space named in every challenge (RFC 6750 §3). */
export const REALM = 'centralmcp-router';
/** RFC 9728 §3: the well-known path of protected resource metadata. */
export const METADATA_PATH = '/.well-known/oauth-protected-resource';
/** The router's MCP endpoint; its audience normally ends with it. */
const MCP_PATH = '/mcp';
/** Longer than any real JWT or key; bounds the hashing and parsing an anonymous caller can cause. */
export const MAX_TOKEN_CHARS = 8192;

/**
 * Query parameters that carry credentials in the wild. RFC 6750 §2.3 allows `access_token` in the
 * URI but says it SHOULD NOT be used (URIs end up in logs and browser history), and the MCP
 * authorization spec forbids it; the router refuses it so a leaky client is fixed, not tolerated.
 */
const QUERY_CREDENTIALS = new Set(['access_token', 'api_key', 'apikey', 'api-key', 'token', 'key', 'id_token', 'bearer']);

/** RFC 6750 §2.1 b64token. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

export type Presented =
  | { kind: 'token'; token: string }
  | { kind: 'absent' }
  | { kind: 'refused'; reason: Extract<AuthFailureReason, 'query_credential' | 'multiple_credentials' | 'malformed_header'> };

/**
 * The bearer credential of a request: only from one `Authorization: Bearer …` header (RFC 6750
 * §2.1). A credential-named query parameter, or several Authorization headers, refuse the request
 * whatever else it carries. Another scheme (Basic) counts as no credential.
 */
export function presentedCredential(authorization: string | string[] | undefined, url: string): Presented {
  if (hasQueryCredential(url)) return { kind: 'refused', reason: 'query_credential' };
  if (Array.isArray(authorization)) {
    if (authorization.length > 1) return { kind: 'refused', reason: 'multiple_credentials' };
    authorization = authorization[0];
  }
  if (authorization === undefined || authorization.trim() === '') return { kind: 'absent' };
  const match = /^\s*(\S+)(?:\s+(.*?))?\s*$/s.exec(authorization);
  // The scheme is case-insensitive (RFC 9110 §11.1).
  if (!match || match[1].toLowerCase() !== 'bearer') return { kind: 'absent' };
  const token = match[2] ?? '';
  if (token === '' || token.length > MAX_TOKEN_CHARS || !B64TOKEN.test(token)) return { kind: 'refused', reason: 'malformed_header' };
  return { kind: 'token', token };
}

/**
 * Every `Authorization` value among raw header lines (name, value, name, value …), in order: one
 * string for one header, a list for several, undefined for none. Node's `headers` object keeps
 * only the first, which would let "valid key + anything" through (RFC 6750 §2.1: one credential).
 */
export function authorizationOf(rawHeaders: readonly string[]): string | string[] | undefined {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i].toLowerCase() === 'authorization') values.push(rawHeaders[i + 1]);
  }
  return values.length <= 1 ? values[0] : values;
}

function hasQueryCredential(url: string): boolean {
  const q = url.indexOf('?');
  if (q === -1) return false;
  const query = url.slice(q + 1).split('#')[0];
  for (const name of new URLSearchParams(query).keys()) {
    if (QUERY_CREDENTIALS.has(name.toLowerCase())) return true;
  }
  return false;
}

/** What a failure says to the caller: fixed texts, so no credential or library message leaks. */
const MESSAGES: Record<AuthFailureReason, string> = {
  missing: 'authentication required: send Authorization: Bearer <token>',
  query_credential: 'credentials are not accepted in the query string; send Authorization: Bearer <token>',
  multiple_credentials: 'send exactly one Authorization header',
  malformed_header: 'the Authorization header is not a well-formed Bearer token',
  malformed_token: 'the token is not a well-formed JWT',
  unknown_key: 'the API key is not valid',
  expired: 'the token has expired',
  not_yet_valid: 'the token is not valid yet',
  wrong_issuer: 'the token was issued by another issuer',
  wrong_audience: 'the token is meant for another audience (RFC 8707)',
  missing_claim: 'the token lacks a required claim (sub, exp)',
  algorithm_not_allowed: 'the token is signed with an algorithm this router does not accept',
  bad_signature: 'the token signature is not valid',
  unknown_signing_key: 'the token is signed with a key the issuer does not publish',
  key_set_unavailable: "the token could not be verified: the issuer's key set is unavailable",
  invalid_token: 'the token is not valid',
};

/**
 * The refusal for `reason`. RFC 6750 §3.1: a request without credentials gets a bare challenge
 * (no error code); a malformed request is 400 `invalid_request`; a bad credential is 401
 * `invalid_token`. With `resourceMetadataUrl` (jwt mode) the challenge names the RFC 9728 metadata,
 * which is how an MCP client finds the authorization server (MCP authorization spec).
 */
export function refusal(reason: AuthFailureReason, resourceMetadataUrl?: string): AuthFailure {
  const invalidRequest = reason === 'query_credential' || reason === 'multiple_credentials' || reason === 'malformed_header';
  const params = [`realm="${REALM}"`];
  if (resourceMetadataUrl !== undefined) params.push(`resource_metadata="${resourceMetadataUrl}"`);
  if (reason !== 'missing') {
    params.push(`error="${invalidRequest ? 'invalid_request' : 'invalid_token'}"`, `error_description="${MESSAGES[reason]}"`);
  }
  return { ok: false, status: invalidRequest ? 400 : 401, wwwAuthenticate: `Bearer ${params.join(', ')}`, message: MESSAGES[reason], reason };
}

/**
 * The JSON body to send with a refusal: the OAuth error object (RFC 6750 §3, as the MCP SDK's own
 * bearer middleware answers), so a client reads the same code from the body and the challenge.
 */
export function refusalBody(failure: AuthFailure): { error: 'invalid_request' | 'invalid_token'; error_description: string } {
  return { error: failure.status === 400 ? 'invalid_request' : 'invalid_token', error_description: failure.message };
}

/**
 * Where the RFC 9728 metadata of `audience` (this router's public /mcp URL) is served. RFC 9728
 * §3.1 inserts the well-known path between host and path, as the MCP SDK's clients do; the router
 * serves that for the usual `/mcp` audience, and the bare well-known path for any other.
 */
export function resourceMetadataUrl(audience: string): string {
  const url = new URL(audience);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${METADATA_PATH}${path === MCP_PATH ? MCP_PATH : ''}`;
}

/** The paths the metadata is served on (both, so a client that builds the URL itself finds it too). */
export const METADATA_ROUTES = [METADATA_PATH, `${METADATA_PATH}${MCP_PATH}`] as const;

/** RFC 9728 §2 protected resource metadata of a resource server trusting one issuer. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  bearer_methods_supported: ['header'];
  resource_name: string;
}

export function protectedResourceMetadata(audience: string, issuer: string): ProtectedResourceMetadata {
  // `resource` must equal the URL the client called (RFC 9728 §3.3), which is the audience.
  return { resource: audience, authorization_servers: [issuer], bearer_methods_supported: ['header'], resource_name: 'CentralMCP Router' };
}

/**
 * The caller's groups from a claim: an array of strings (Keycloak, Okta, Entra) or one
 * space-separated string (the OAuth `scope` style). Anything else, or non-string entries, give no
 * groups: access then falls back to `*` rules, never to more.
 */
export function groupsFromClaim(value: unknown): string[] {
  if (typeof value === 'string') return value.split(/\s+/).filter((g) => g !== '');
  if (Array.isArray(value)) return value.filter((g): g is string => typeof g === 'string' && g !== '');
  return [];
}

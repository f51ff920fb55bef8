import type { Principal } from '../common/principal';

/** What authentication reads of an HTTP request: its headers and its raw URL (with the query). */
export interface AuthRequest {
  headers: Record<string, string | string[] | undefined>;
  /**
   * The header lines as received (Node's `rawHeaders`: name, value, name, value …). Node's parsed
   * `headers` keep only the first `Authorization`, so a repeated one is seen only here; when given,
   * the credential is read from these.
   */
  rawHeaders?: readonly string[];
  url: string;
}

/**
 * Why a request was refused. A closed set: it goes into audit lines and may become a metric label;
 * never the credential or the library's message.
 */
export type AuthFailureReason =
  | 'missing'
  | 'query_credential'
  | 'multiple_credentials'
  | 'malformed_header'
  | 'malformed_token'
  | 'unknown_key'
  | 'expired'
  | 'not_yet_valid'
  | 'wrong_issuer'
  | 'wrong_audience'
  | 'missing_claim'
  | 'algorithm_not_allowed'
  | 'bad_signature'
  | 'unknown_signing_key'
  | 'key_set_unavailable'
  | 'invalid_token';

export interface AuthFailure {
  ok: false;
  /** 400 for a malformed request (RFC 6750 `invalid_request`), else 401. */
  status: 401 | 400;
  /** The `WWW-Authenticate` header value to send with the status. */
  wwwAuthenticate: string;
  /** Human-readable, safe to send to the caller (no credential, no key material). */
  message: string;
  reason: AuthFailureReason;
}

export type AuthResult = { ok: true; principal: Principal } | AuthFailure;

import { isJsonObject, type JsonObject } from '../../common/json-object';
import type { AuthFailureReason } from '../auth.types';

/**
 * The refusal reason for an error thrown by `jose`'s `jwtVerify`, read from its stable `code`
 * (and, for claim failures, `claim` and `reason`), never from its message.
 */
export function reasonOfJoseError(err: unknown): AuthFailureReason {
  const fields: JsonObject = isJsonObject(err) ? err : {};
  const { code, claim, reason } = fields;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (reason === 'missing') return 'missing_claim';
      if (claim === 'iss') return 'wrong_issuer';
      if (claim === 'aud') return 'wrong_audience';
      if (claim === 'nbf') return 'not_yet_valid';
      return 'invalid_token';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return 'algorithm_not_allowed';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return 'bad_signature';
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return 'unknown_signing_key';
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JWKS_INVALID':
      return 'key_set_unavailable';
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return 'malformed_token';
    default:
      // jose wraps a failed JWKS fetch (connection refused, non-200) in a plain JOSEError or a
      // TypeError from fetch: the issuer is unreachable, not the token bad.
      if (code === 'ERR_JOSE_GENERIC' || err instanceof TypeError) return 'key_set_unavailable';
      return 'invalid_token';
  }
}

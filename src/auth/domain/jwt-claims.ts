import { z } from 'zod';
import type { Principal } from '../../common/principal';
import { groupsFromClaim } from './bearer';

/** Longest `sub` taken as a principal id (OIDC caps it at 255 ASCII characters). */
export const MAX_SUBJECT_CHARS = 255;

/**
 * The claims a principal is built from. `jose` checks the signature, `iss`, `aud`, `exp`, `nbf`
 * and that `sub` is present, but not what `sub` holds: past it the payload is still the issuer's
 * JSON as sent. Loose: every other claim is kept for the groups claim, which the config names.
 */
const PrincipalClaims = z.looseObject({ sub: z.string().min(1).max(MAX_SUBJECT_CHARS) });

/**
 * The principal of a verified token's payload: `sub` as its id, its groups from `groupsClaim`
 * (`groupsFromClaim`: no usable groups give none). Undefined when `sub` is not a usable id.
 */
export function principalOfClaims(payload: unknown, groupsClaim: string): Principal | undefined {
  const claims = PrincipalClaims.safeParse(payload);
  if (!claims.success) return undefined;
  return { id: claims.data.sub, groups: groupsFromClaim(claims.data[groupsClaim]) };
}

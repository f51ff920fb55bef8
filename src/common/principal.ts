/**
 * Who is calling (architecture §10): an authenticated identity and the groups access rules match on.
 * Built once per request by `auth/`, then passed down the seam as a value; never read from globals.
 */
export interface Principal {
  /** Stable identity: the API key's configured `principal`, or the JWT's `sub`. */
  readonly id: string;
  /** Groups from the API key's config or the JWT's groups claim; access rules match on these. */
  readonly groups: readonly string[];
}

/**
 * The caller with `auth.mode: none`. It has no groups, so with an `access` block it matches only a
 * rule for the group `*`; without one, everything is allowed (a loopback developer setup).
 */
export const ANONYMOUS: Principal = Object.freeze({ id: 'anonymous', groups: Object.freeze([]) });

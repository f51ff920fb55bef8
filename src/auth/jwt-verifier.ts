import type * as JoseModule from 'jose' with { 'resolution-mode': 'import' };
import type { JWTVerifyGetKey } from 'jose' with { 'resolution-mode': 'import' };
import type { JwtConfig } from '../config/config.types';
import type { AuthFailureReason } from './auth.types';
import { reasonOfJoseError } from './domain/jose-errors';

type Jose = typeof JoseModule;

/** How the issuer's key set is fetched: bounded, cached, re-fetched for an unseen `kid` at most twice a minute. */
const JWKS_OPTIONS = { timeoutDuration: 5_000, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 } as const;

/**
 * A verified token's payload stays `unknown`: `jose` vouches for the signature and the registered
 * claims it was asked to check, not for the types of the others (`principalOfClaims` parses them).
 */
export type Verified = { ok: true; payload: unknown } | { ok: false; reason: AuthFailureReason };

/**
 * Verifies access tokens as an OAuth 2.1 resource server with `jose`: signature against
 * the issuer's JWKS, exact `iss` and `aud` (RFC 8707), an asymmetric-only algorithm allow-list (so
 * neither `none` nor an HS256 token "signed" with the public key can pass), `exp` required and
 * checked with `nbf` within the configured skew, on every request.
 *
 * `jose` is an ES module and this code base compiles to CommonJS, so it is loaded with a dynamic
 * `import()`, once, when the verifier is built.
 */
export class JwtVerifier {
  private readonly ready: Promise<{ jose: Jose; keys: JWTVerifyGetKey }>;

  constructor(private readonly config: JwtConfig) {
    this.ready = import('jose').then((jose) => ({ jose, keys: jose.createRemoteJWKSet(new URL(config.jwksUri), JWKS_OPTIONS) }));
  }

  /** Resolves once `jose` is loaded; call at boot so the first request does not pay for it. */
  async init(): Promise<void> {
    await this.ready;
  }

  async verify(token: string, nowMs: number): Promise<Verified> {
    const { jose, keys } = await this.ready;
    try {
      const { payload } = await jose.jwtVerify(token, keys, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        algorithms: this.config.algorithms,
        clockTolerance: this.config.clockToleranceSeconds,
        requiredClaims: ['exp', 'sub'],
        currentDate: new Date(nowMs),
      });
      return { ok: true, payload };
    } catch (err) {
      return { ok: false, reason: reasonOfJoseError(err) };
    }
  }
}

import { Inject, Injectable, Logger, Optional, type OnModuleInit } from '@nestjs/common';
import { CLOCK, systemClock, type Clock } from '../common/clock';
import { ANONYMOUS } from '../common/principal';
import { ConfigService } from '../config/config.service';
import { AUTH_CONFIG } from '../config/config.tokens';
import type { AuthConfig } from '../config/config.types';
import type { AuthFailureReason, AuthRequest, AuthResult } from './auth.types';
import { apiKeyEntry, matchApiKey, type ApiKeyEntry } from './domain/api-keys';
import { authorizationOf, presentedCredential, protectedResourceMetadata, refusal, resourceMetadataUrl, type ProtectedResourceMetadata } from './domain/bearer';
import { principalOfClaims } from './domain/jwt-claims';
import { JwtVerifier } from './jwt-verifier';

/**
 * Who the caller is (architecture §10). Credentials come only from `Authorization: Bearer …`; they are
 * read here and nowhere else, and nothing of them travels further than the Principal this returns
 * (backends get only what their config gives them).
 */
@Injectable()
export class AuthService implements OnModuleInit {
  private readonly logger = new Logger(AuthService.name);
  /** Reloaded with the config file; the mode and a JWT issuer's settings take a restart. */
  private keys: readonly ApiKeyEntry[];
  private readonly verifier?: JwtVerifier;
  private readonly metadataUrl?: string;

  constructor(
    @Inject(AUTH_CONFIG) private readonly config: AuthConfig,
    configs: ConfigService,
    @Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock,
  ) {
    this.keys = config.mode === 'apiKeys' ? config.apiKeys.map(apiKeyEntry) : [];
    configs.onReload((next) => {
      if (next.auth?.mode === 'apiKeys') this.keys = next.auth.apiKeys.map(apiKeyEntry);
    });
    if (config.mode === 'jwt') {
      this.verifier = new JwtVerifier(config.jwt);
      this.metadataUrl = resourceMetadataUrl(config.jwt.audience);
    }
  }

  async onModuleInit(): Promise<void> {
    await this.verifier?.init();
  }

  /**
   * The caller of one request, or the refusal to send back (status, WWW-Authenticate, message).
   * Decided at once unless a JWT must be verified: a promise only then, since this runs on every
   * request and a promise costs it its async hooks and turns.
   */
  authenticate(req: AuthRequest): AuthResult | Promise<AuthResult> {
    const authorization = req.rawHeaders ? authorizationOf(req.rawHeaders) : req.headers.authorization;
    const presented = presentedCredential(authorization, req.url);
    if (presented.kind === 'refused') return this.refuse(presented.reason);
    switch (this.config.mode) {
      case 'none':
        // No authentication: whatever Authorization says is not ours to judge (a proxy in front may use it).
        return { ok: true, principal: ANONYMOUS };
      case 'apiKeys': {
        if (presented.kind === 'absent') return this.refuse('missing');
        const entry = matchApiKey(presented.token, this.keys);
        if (!entry) return this.refuse('unknown_key');
        return { ok: true, principal: { id: entry.principal, groups: entry.groups } };
      }
      case 'jwt':
        if (presented.kind === 'absent') return this.refuse('missing');
        return this.verifyJwt(presented.token, this.config.jwt.groupsClaim);
    }
  }

  private async verifyJwt(token: string, groupsClaim: string): Promise<AuthResult> {
    const verified = await this.verifier!.verify(token, this.clock.now());
    if (!verified.ok) return this.refuse(verified.reason);
    const principal = principalOfClaims(verified.payload, groupsClaim);
    return principal === undefined ? this.refuse('missing_claim') : { ok: true, principal };
  }

  /** RFC 9728 metadata in jwt mode; undefined otherwise (there is no authorization server to name). */
  protectedResourceMetadata(): ProtectedResourceMetadata | undefined {
    return this.config.mode === 'jwt' ? protectedResourceMetadata(this.config.jwt.audience, this.config.jwt.issuer) : undefined;
  }

  private refuse(reason: AuthFailureReason): AuthResult {
    const failure = refusal(reason, this.metadataUrl);
    if (reason === 'key_set_unavailable') this.logger.warn({ msg: "the issuer's key set could not be fetched", reason });
    else this.logger.debug({ msg: 'request refused', reason, status: failure.status });
    return failure;
  }
}

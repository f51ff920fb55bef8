import { resolve } from 'node:path';
import { isLoopbackAddress } from '../../common/loopback';
import { API_KEY_DEFAULTS, JWT_DEFAULTS } from '../config.defaults';
import type { AccessRuleDto, AuditDto, AuthDto, JwtDto } from '../config.schema';
import type { AccessConfig, ApiKeyConfig, AuditConfig, AuthConfig, JwtConfig } from '../config.types';
import { withDefaults } from './defaults';

/** The security parts of the config (architecture §10): who the caller is, what they may call, the audit sink. */
export interface SecuritySettings {
  auth: AuthConfig;
  access: AccessConfig;
  audit: AuditConfig;
}

/**
 * The rules between fields that class-validator cannot express, and the defaults. Shapes have
 * already been validated (and reported) field by field; this only adds problems, naming the field,
 * and never trusts a shape it did not check itself.
 */
export function buildSecurity(
  file: { auth?: AuthDto; access?: AccessRuleDto[]; audit?: AuditDto },
  listenHost: string,
  configDir: string,
  problems: string[],
): SecuritySettings {
  const auth = buildAuth(file.auth, listenHost, problems);
  return { auth, access: buildAccess(file.access, auth.mode, problems), audit: buildAudit(file.audit, configDir, problems) };
}

function buildAuth(dto: AuthDto | undefined, listenHost: string, problems: string[]): AuthConfig {
  const mode = dto?.mode ?? 'none';
  const allowInsecure = dto?.allowInsecure === true;
  if (dto?.apiKeys !== undefined && mode !== 'apiKeys') problems.push(`auth.apiKeys: only used with auth.mode apiKeys (mode is ${String(mode)})`);
  if (dto?.jwt !== undefined && mode !== 'jwt') problems.push(`auth.jwt: only used with auth.mode jwt (mode is ${String(mode)})`);
  switch (mode) {
    case 'none':
      // architecture §10: without auth anyone who reaches the port calls every allowed tool, which is
      // only acceptable when nobody but this machine can reach it.
      if (!isLoopbackAddress(listenHost) && !allowInsecure) {
        problems.push(
          `auth.mode: none (no authentication) is refused on the non-loopback address ${listenHost}; ` +
            'use apiKeys or jwt, or set auth.allowInsecure: true if something in front authenticates callers',
        );
      }
      return { mode, allowInsecure };
    case 'apiKeys':
      return { mode, allowInsecure, apiKeys: buildApiKeys(dto?.apiKeys, problems) };
    case 'jwt':
      return { mode, allowInsecure, jwt: buildJwt(dto?.jwt, problems) };
    default:
      // Reported by the field validation already (auth.mode must be one of ...).
      return { mode: 'none', allowInsecure };
  }
}

function buildApiKeys(keys: AuthDto['apiKeys'], problems: string[]): ApiKeyConfig[] {
  if (!Array.isArray(keys) || keys.length === 0) {
    problems.push('auth.apiKeys: auth.mode apiKeys needs at least one key ({ principal, sha256, groups })');
    return [];
  }
  const seen = new Map<string, number>();
  return keys.map((key, i) => {
    const sha256 = typeof key?.sha256 === 'string' ? key.sha256.toLowerCase() : '';
    const first = seen.get(sha256);
    // One key must mean one principal; two entries for the same hash would make that a coin toss.
    if (sha256 !== '' && first !== undefined) problems.push(`auth.apiKeys.${i}.sha256: the same key hash is already configured at auth.apiKeys.${first}`);
    else seen.set(sha256, i);
    return { ...withDefaults(key, API_KEY_DEFAULTS), sha256 };
  });
}

function buildJwt(dto: JwtDto | undefined, problems: string[]): JwtConfig {
  if (dto === undefined) problems.push('auth.jwt: auth.mode jwt needs { issuer, audience, jwksUri }');
  const jwksUri = dto?.jwksUri ?? '';
  // Keys fetched over plain HTTP can be swapped in transit, and then any token verifies. A local
  // identity provider (development, tests) is the one exception.
  if (typeof jwksUri === 'string' && jwksUri !== '' && !isSecureUrl(jwksUri)) {
    problems.push('auth.jwt.jwksUri: must be an https URL (plain http only on a loopback host)');
  }
  return {
    ...withDefaults(dto, JWT_DEFAULTS),
    issuer: dto?.issuer ?? '',
    audience: dto?.audience ?? '',
    jwksUri,
    // An algorithm listed twice is one algorithm.
    algorithms: [...new Set(dto?.algorithms ?? JWT_DEFAULTS.algorithms)],
  };
}

function buildAccess(rules: AccessRuleDto[] | undefined, mode: AuthConfig['mode'], problems: string[]): AccessConfig {
  if (rules === undefined) {
    // Fail closed, but loudly at boot: with auth on and no rules nobody could call anything, and
    // every call would look like an unknown tool, which is a puzzle rather than a config.
    if (mode !== 'none') {
      problems.push(`access: with auth.mode ${mode} a caller may call only what a rule allows; add rules, e.g. - { groups: ["*"], allow: ["*"] }`);
    }
    return {};
  }
  if (!Array.isArray(rules)) return {};
  return {
    rules: rules.map((r) => ({
      groups: Array.isArray(r?.groups) ? [...r.groups] : [],
      allow: Array.isArray(r?.allow) ? [...r.allow] : [],
      ...(Array.isArray(r?.write) ? { write: [...r.write] } : {}),
    })),
  };
}

function buildAudit(dto: AuditDto | undefined, configDir: string, problems: string[]): AuditConfig {
  if (dto === undefined || dto.sink === 'stdout') {
    if (dto?.path !== undefined) problems.push('audit.path: only used with audit.sink file');
    return { sink: 'stdout' };
  }
  // A relative path is relative to the config file, as for stdio backends.
  return { sink: 'file', path: typeof dto.path === 'string' ? resolve(configDir, dto.path) : '' };
}

function isSecureUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackAddress(url.hostname));
  } catch {
    // Not a URL at all: the field validation reports it.
    return true;
  }
}

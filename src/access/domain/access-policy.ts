import { globToRegExp } from '../../common/glob';
import type { Principal } from '../../common/principal';
import type { AccessRule, AuthMode } from '../../config/config.types';

/** The group that matches every principal, with or without groups. */
export const ANY_GROUP = '*';

/** One rule with its globs compiled once at boot. */
export interface CompiledRule {
  readonly groups: ReadonlySet<string>;
  readonly allow: readonly RegExp[];
  readonly write: readonly RegExp[];
  /** The backend part of each `allow` and `write` glob: the servers this rule opens any tool of. */
  readonly backends: readonly RegExp[];
  /** Backend globs of the `allow` patterns that grant every tool of a backend (`files:*`, `*`). */
  readonly wholeBackends: readonly RegExp[];
}

/** The access rules, compiled; `undefined` rules means the config had no `access` block at all. */
export interface CompiledAccess {
  readonly rules?: readonly CompiledRule[];
}

/** Compiles the `access` rules (architecture §10); `undefined` when the config has no `access` block. */
export function compileAccess(rules: readonly AccessRule[] | undefined): CompiledAccess {
  if (rules === undefined) return {};
  return {
    rules: rules.map((r) => ({
      groups: new Set(r.groups),
      allow: r.allow.map(globToRegExp),
      write: (r.write ?? []).map(globToRegExp),
      backends: [...r.allow, ...(r.write ?? [])].map(backendGlob),
      wholeBackends: r.allow.flatMap(wholeBackendGlob).map(globToRegExp),
    })),
  };
}

/** The backend part of a `backend:tool` glob, compiled; a glob without `:` names every backend. */
function backendGlob(pattern: string): RegExp {
  const colon = pattern.indexOf(':');
  return colon < 0 ? /^.*$/s : globToRegExp(`${pattern.slice(0, colon)}:`);
}

/**
 * Whether some rule of `principal`'s opens any tool of `backend`: what decides whether a server the
 * router cannot list right now (not connected, no catalog yet) is one this caller would use.
 */
export function mayUseBackend(principal: Principal, backend: string, compiled: CompiledAccess, authMode: AuthMode): boolean {
  if (compiled.rules === undefined) return authMode === 'none';
  const rule = firstRule(principal, compiled.rules);
  return rule !== undefined && rule.backends.some((re) => re.test(`${backend}:`));
}

/**
 * The backend part of a pattern that allows every tool of the backends it matches (`files:*`,
 * `team-*:*`, `*`), as a glob of `backend:tool` form; none for a pattern that names tools.
 */
function wholeBackendGlob(pattern: string): string[] {
  const colon = pattern.indexOf(':');
  if (colon < 0) return pattern === '*' ? ['*:'] : [];
  return pattern.slice(colon + 1) === '*' ? [`${pattern.slice(0, colon)}:`] : [];
}

/**
 * Whether `principal` may list and use a backend's resources and prompts (architecture §16). They
 * have no per-item rules: a backend's resources and prompts are its caller's when the first
 * matching rule allows every tool of that backend (`backend:*` or `*`), since a resource or prompt
 * may say anything about what the backend holds. No `access` block: as for tools.
 */
export function mayUseWholeBackend(principal: Principal, backend: string, compiled: CompiledAccess, authMode: AuthMode): boolean {
  if (compiled.rules === undefined) return authMode === 'none';
  const rule = firstRule(principal, compiled.rules);
  return rule !== undefined && rule.wholeBackends.some((re) => re.test(`${backend}:`));
}

/**
 * What decides every answer of this module for `principal`: the index of its deciding rule (the
 * first naming one of its groups, or `*`), `none` when no rule matches, or with no `access` block
 * whether everything is open (auth mode `none`) or closed. Two principals with the same identity
 * are allowed exactly the same, so what is computed from their access alone may be shared.
 */
export function accessIdentity(principal: Principal, compiled: CompiledAccess, authMode: AuthMode): string {
  if (compiled.rules === undefined) return authMode === 'none' ? 'open' : 'closed';
  const index = compiled.rules.findIndex((r) => r.groups.has(ANY_GROUP) || principal.groups.some((g) => r.groups.has(g)));
  return index < 0 ? 'none' : `rule:${index}`;
}

/** The rule that decides for `principal`: the first naming one of its groups, or `*`. */
function firstRule(principal: Principal, rules: readonly CompiledRule[]): CompiledRule | undefined {
  return rules.find((r) => r.groups.has(ANY_GROUP) || principal.groups.some((g) => r.groups.has(g)));
}

/**
 * Whether `principal` may see and call `backend:tool` (architecture §10). The first rule naming one of
 * the principal's groups (or `*`) decides, and decides alone: a later rule never widens an earlier
 * one, so `- { groups: [interns], allow: [] }` placed first shuts interns out whatever else they
 * belong to. With no rule matching there is no access. With no `access` block at all, only auth
 * mode `none` (the loopback developer setup) may call everything; with auth on the config loader
 * refuses that combination, and this fails closed if it ever gets here.
 */
export function mayCall(principal: Principal, backend: string, tool: string, compiled: CompiledAccess, authMode: AuthMode): boolean {
  if (compiled.rules === undefined) return authMode === 'none';
  const rule = compiled.rules.find((r) => r.groups.has(ANY_GROUP) || principal.groups.some((g) => r.groups.has(g)));
  if (rule === undefined) return false;
  const key = `${backend}:${tool}`;
  return rule.allow.some((re) => re.test(key));
}

/**
 * Whether `principal` may call `backend:tool` through `invoke_tool`: the same first
 * matching rule decides, by its `write` globs, which are separate from `allow`. With no `access`
 * block (auth mode `none` only) the operator's `writes.allow` alone decides, as `allow` does for reads.
 */
export function mayWrite(principal: Principal, backend: string, tool: string, compiled: CompiledAccess, authMode: AuthMode): boolean {
  if (compiled.rules === undefined) return authMode === 'none';
  const rule = compiled.rules.find((r) => r.groups.has(ANY_GROUP) || principal.groups.some((g) => r.groups.has(g)));
  if (rule === undefined) return false;
  const key = `${backend}:${tool}`;
  return rule.write.some((re) => re.test(key));
}

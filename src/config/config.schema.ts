import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
  ValidateNested,
} from './class-validator-parts';

/**
 * The shapes of the config file (architecture §3), validated with class-validator at boot. Each
 * field is declared here once, with its bounds and its meaning; `config.defaults.ts` says what its
 * absence means, and the types the router works with (`config.types.ts`) are derived from both.
 */

/** The closed sets of the file's values: each one list, read by the validator and by the types. */
export const BACKEND_TRANSPORTS = ['stdio', 'http', 'sse'] as const;
/**
 * Which MCP era the router speaks to a stdio or Streamable HTTP backend (docs/backend-eras.md):
 * `legacy` opens with `initialize` (2025-11-25 and before), `modern` speaks 2026-07-28 only, `auto`
 * probes with `server/discover` on each connection attempt and falls back to `initialize`.
 */
export const BACKEND_ERAS = ['auto', 'legacy', 'modern'] as const;
export const RATE_LIMIT_STORES = ['memory', 'redis'] as const;
/** What a call does while Redis cannot answer: use the per-replica share, or fail with `error`. */
export const RATE_LIMIT_FAIL_POLICIES = ['open', 'closed'] as const;
/** Who the caller is (architecture §10). */
export const AUTH_MODES = ['none', 'apiKeys', 'jwt'] as const;
/** JWS algorithms a JWT may be signed with: asymmetric only, so never `none` and never HS*. */
export const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;
export const AUDIT_SINKS = ['stdout', 'file'] as const;
/**
 * `off`: definitions are taken as the backend says. `warn`: a tool whose definition differs from
 * its approved pin (or has none) is logged, counted and marked in `find_tool`. `enforce`: such a
 * tool is quarantined (hidden from `find_tool`, its calls answer `blocked`).
 */
export const TRUST_MODES = ['off', 'warn', 'enforce'] as const;
/**
 * What `tools/list` publishes (README "Tools published directly"): `meta` the meta-tools only,
 * `direct` each tool the caller may call as a tool of its own (`<backend>__<tool>`), `both` the two.
 */
export const PUBLISH_MODES = ['meta', 'direct', 'both'] as const;

/** A token bucket: the global one, each principal's, or a backend's own. */
export class RateLimitDto {
  @IsNumber() @Min(0.001) @Max(1_000_000) ratePerSecond!: number;
  @IsInt() @Min(1) @Max(1_000_000) burst!: number;
  /** Longest wait for a token; a backend's own, else the global bucket's, else 10000 (architecture §7). */
  @IsOptional() @IsInt() @Min(0) @Max(600_000) maxWaitMs?: number;
}

/** `rateLimit.redis`: the shared store's connection and failure policy. */
export class RedisStoreDto {
  /** `redis://` or `rediss://` (TLS); user and password in the URL. Never logged. */
  // The message never repeats the value: the URL may hold a password.
  @IsString()
  @Matches(/^rediss?:\/\/[^\s]+$/, { message: 'url must be a redis:// or rediss:// URL (value not shown: it may hold a password)' })
  url!: string;
  /** Prefix of every bucket key, so several routers (or other tenants) can share one Redis. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(100) keyPrefix?: string;
  @IsOptional() @IsInt() @Min(100) @Max(60_000) connectTimeoutMs?: number;
  /** A reservation not answered within this is a Redis failure (the failure policy applies). */
  @IsOptional() @IsInt() @Min(10) @Max(10_000) commandTimeoutMs?: number;
  @IsOptional() @IsIn(RATE_LIMIT_FAIL_POLICIES) fail?: (typeof RATE_LIMIT_FAIL_POLICIES)[number];
  /** Fail open: each replica then allows `rate / replicas` (and `burst / replicas`, at least 1). */
  @IsOptional() @IsInt() @Min(1) @Max(1_000) replicas?: number;
}

/**
 * The file's top-level `rateLimit`: the global bucket (rate and burst together, or neither) and
 * where every bucket lives.
 */
export class GlobalRateLimitDto {
  @ValidateIf((o: GlobalRateLimitDto) => o.ratePerSecond !== undefined || o.burst !== undefined)
  @IsNumber()
  @Min(0.001)
  @Max(1_000_000)
  ratePerSecond?: number;
  @ValidateIf((o: GlobalRateLimitDto) => o.ratePerSecond !== undefined || o.burst !== undefined)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  burst?: number;
  @IsOptional() @IsInt() @Min(0) @Max(600_000) maxWaitMs?: number;
  @IsOptional() @IsIn(RATE_LIMIT_STORES) store?: (typeof RATE_LIMIT_STORES)[number];
  @IsOptional() @ValidateNested() @Type(() => RedisStoreDto) redis?: RedisStoreDto;
}

/** What every backend sets, whatever its transport. */
export class BackendDto {
  @IsIn(BACKEND_TRANSPORTS) transport!: (typeof BACKEND_TRANSPORTS)[number];
  /** Readiness waits for it. */
  @IsOptional() @IsBoolean() required?: boolean;
  /** Per-call timeout in milliseconds. */
  @IsOptional() @IsInt() @Min(100) @Max(600_000) timeoutMs?: number;
  @IsOptional() @ValidateNested() @Type(() => RateLimitDto) rateLimit?: RateLimitDto;
}

export class StdioBackendDto extends BackendDto {
  @IsString() @MinLength(1) command!: string;
  @IsOptional() @IsArray() @IsString({ each: true }) args?: string[];
  /** The child's configured environment (variables already expanded). */
  @IsOptional() @IsObject() env?: Record<string, string>;
  /** Working directory of the child, relative to the config file (absolute once loaded); default: the config file's directory. */
  @IsOptional() @IsString() @MinLength(1) cwd?: string;
  /** Absent means `auto`: probe each new child with `server/discover` (spec stdio "Backward Compatibility"). */
  @IsOptional() @IsIn(BACKEND_ERAS) era?: (typeof BACKEND_ERAS)[number];
}

export class HttpBackendDto extends BackendDto {
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }) url!: string;
  @IsOptional() @IsObject() headers?: Record<string, string>;
  /** Streamable HTTP only; absent means `auto`. An `sse` backend is always `legacy`. */
  @IsOptional() @IsIn(BACKEND_ERAS) era?: (typeof BACKEND_ERAS)[number];
}

export class ReadOnlyPolicyDto {
  /** `backend:tool` glob patterns treated as read-only although not annotated so. */
  @IsOptional() @IsArray() @IsString({ each: true }) allow?: string[];
  /** `backend:tool` glob patterns never callable through the read path; deny wins. */
  @IsOptional() @IsArray() @IsString({ each: true }) deny?: string[];
}

export class PolicyDto {
  @IsOptional() @ValidateNested() @Type(() => ReadOnlyPolicyDto) readOnly?: ReadOnlyPolicyDto;
}

/**
 * A principal lands in audit lines and cursor bindings: a short token with no spaces or controls
 * keeps both unambiguous. The operator picks it, so the rule costs nothing.
 */
const PRINCIPAL = /^[A-Za-z0-9][A-Za-z0-9._@:/+-]{0,127}$/;
/**
 * Groups must equal what an identity provider puts in its groups claim (Keycloak's `/org/readers`,
 * Entra's GUIDs, AD's `Domain Users`), so any printable text is accepted; only controls and
 * invisible format characters are refused, since they would make two rules look alike.
 */
const GROUP = /^(?![\s]*$)[^\p{Cc}\p{Cf}]{1,256}$/u;
const GROUP_MESSAGE = 'each group must be 1..256 printable characters';

export class ApiKeyDto {
  /** The identity the key authenticates (audit logs, cursor binding). Several keys may share one (rotation). */
  @IsString()
  @Matches(PRINCIPAL, { message: 'principal must be 1..128 characters: letters, digits and ._@:/+- (starting with a letter or digit)' })
  principal!: string;
  /** SHA-256 of the key, 64 lower-case hex digits once loaded; the key itself is never configured. */
  @IsString() @Matches(/^[0-9a-fA-F]{64}$/, { message: 'sha256 must be 64 hex digits (the SHA-256 of the key, never the key)' }) sha256!: string;
  @IsOptional() @IsArray() @IsString({ each: true }) @Matches(GROUP, { each: true, message: GROUP_MESSAGE }) groups?: string[];
}

/** An OAuth 2.1 resource server's view of its authorization server. */
export class JwtDto {
  /** Exact `iss`; also the one entry of `authorization_servers` in the RFC 9728 metadata. */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }) issuer!: string;
  /** Exact `aud` (RFC 8707): this router's public /mcp URL, and the metadata's `resource`. */
  // RFC 8707 / MCP authorization: the audience is this server's canonical URL, which is also the
  // `resource` of its RFC 9728 metadata.
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }) audience!: string;
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }) jwksUri!: string;
  /** Claim holding the caller's groups: an array of strings or a space-separated string. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(200) groupsClaim?: string;
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty()
  @IsIn(JWT_ALGORITHMS, { each: true, message: `each algorithm must be one of ${JWT_ALGORITHMS.join(', ')} (never none or HS*)` })
  algorithms?: (typeof JWT_ALGORITHMS)[number][];
  /** Skew allowed on `exp` and `nbf`. */
  @IsOptional() @IsInt() @Min(0) @Max(300) clockToleranceSeconds?: number;
}

export class AuthDto {
  @IsIn(AUTH_MODES) mode!: (typeof AUTH_MODES)[number];
  @IsOptional() @IsBoolean() allowInsecure?: boolean;
  @IsOptional() @IsArray() @ArrayMaxSize(10_000) @ValidateNested({ each: true }) @Type(() => ApiKeyDto) apiKeys?: ApiKeyDto[];
  @IsOptional() @ValidateNested() @Type(() => JwtDto) jwt?: JwtDto;
}

/** One access rule: for a principal in any of `groups` (`*`: every principal), these tools. */
export class AccessRuleDto {
  /** `*` matches every principal, including one with no groups (the anonymous caller of mode `none`). */
  @IsArray() @ArrayNotEmpty() @IsString({ each: true }) @Matches(GROUP, { each: true, message: GROUP_MESSAGE }) groups!: string[];
  /** `backend:tool` globs, as in `policy.readOnly`; an empty list denies everything to those groups. */
  @IsArray() @IsString({ each: true }) @MinLength(1, { each: true }) allow!: string[];
  /** `backend:tool` globs these groups may also call through `invoke_tool`, within `writes.allow`; default none. */
  @IsOptional() @IsArray() @IsString({ each: true }) @MinLength(1, { each: true }) write?: string[];
}

/**
 * `writes`: the write path. `invoke_tool` is published only when `enabled`, and calls only tools
 * matched by `allow` and not by `deny` (deny wins), for a caller whose access rule grants them.
 */
export class WritesDto {
  @IsOptional() @IsBoolean() enabled?: boolean;
  /** `backend:tool` globs. */
  @IsOptional() @IsArray() @IsString({ each: true }) @MinLength(1, { each: true }) allow?: string[];
  @IsOptional() @IsArray() @IsString({ each: true }) @MinLength(1, { each: true }) deny?: string[];
}

/** `publish`: whether backend tools are also published as tools of their own, and how many at most. */
export class PublishDto {
  @IsOptional() @IsIn(PUBLISH_MODES) mode?: (typeof PUBLISH_MODES)[number];
  /** Most backend tools one caller's `tools/list` carries; the rest stay reachable through `find_tool`. */
  @IsOptional() @IsInt() @Min(1) @Max(10_000) maxDirectTools?: number;
}

/** Where audit lines go: one JSON line per backend call and per refused call. */
export class AuditDto {
  @IsIn(AUDIT_SINKS) sink!: (typeof AUDIT_SINKS)[number];
  @ValidateIf((o: AuditDto) => o.sink === 'file' || o.path !== undefined) @IsString() @MinLength(1) path?: string;
}

/**
 * An OpenAI-compatible `/v1/embeddings` endpoint for `find_tool`'s dense ranking
 * (`discovery.embeddings`). Optional: without it ranking is lexical only. The router never depends
 * on it: a failed or slow answer makes `find_tool` answer from the lexical ranking.
 */
export class EmbeddingsDto {
  /** Full URL of the embeddings endpoint, e.g. `http://ollama:11434/v1/embeddings`. */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }) url!: string;
  /** The `model` sent with every request. */
  @IsString() @MinLength(1) @MaxLength(200) model!: string;
  /** Sent with every request (credentials: `${VAR}` expanded at boot, never logged). */
  @IsOptional() @IsObject() headers?: Record<string, string>;
  /** Deadline of one query's embedding; past it `find_tool` answers from the lexical ranking. */
  @IsOptional() @IsInt() @Min(50) @Max(60_000) timeoutMs?: number;
  /** Deadline of one batch of tool texts at catalog refresh (in the background). */
  @IsOptional() @IsInt() @Min(100) @Max(600_000) batchTimeoutMs?: number;
  /** Tool texts per request (TEI refuses more than 32 by default; OpenAI takes up to 2048). */
  @IsOptional() @IsInt() @Min(1) @Max(2048) batchSize?: number;
}

export const LEARNING_STORES = ['memory', 'file', 'redis'] as const;

/**
 * `discovery.learning`: `find_tool` learns which request words lead to which tools from what
 * principals call after it (opt-in). Only normalized words and tool keys are stored.
 */
export class LearningDto {
  @IsOptional() @IsBoolean() enabled?: boolean;
  /** An association is used once this many distinct principals made it. */
  @IsOptional() @IsInt() @Min(1) @Max(1_000) minPrincipals?: number;
  /** A successful call pairs with the same principal's last `find_tool` within this many seconds. */
  @IsOptional() @IsInt() @Min(1) @Max(3_600) windowSeconds?: number;
  /** `file` survives restarts; `redis` is shared by replicas (the `rateLimit.redis` connection). */
  @IsOptional() @IsIn(LEARNING_STORES) store?: (typeof LEARNING_STORES)[number];
  /** With `store: file`: the file, relative to the config file (absolute once loaded). */
  @ValidateIf((o: LearningDto) => o.store === 'file' || o.path !== undefined) @IsString() @MinLength(1) path?: string;
  /** A principal's part in an association halves in this many hours. */
  @IsOptional() @IsNumber() @Min(0.01) @Max(87_600) halfLifeHours?: number;
  /** Word-tool associations kept; past it the least recently made are forgotten. */
  @IsOptional() @IsInt() @Min(10) @Max(10_000_000) maxAssociations?: number;
}

/** How `find_tool` ranks beyond its lexical ranking. */
export class DiscoveryDto {
  @IsOptional() @ValidateNested() @Type(() => EmbeddingsDto) embeddings?: EmbeddingsDto;
  @IsOptional() @ValidateNested() @Type(() => LearningDto) learning?: LearningDto;
}

/** `trust`: pinned tool definitions. */
export class TrustDto {
  /** Default: `enforce` with a pins file (configuring pins and not enforcing them would be a surprise), else `off`. */
  @IsOptional() @IsIn(TRUST_MODES) mode?: (typeof TRUST_MODES)[number];
  /** The pins file, relative to the config file (absolute once loaded); required unless mode is `off`. */
  @IsOptional() @IsString() @MinLength(1) pinsFile?: string;
  /** A backend with no pin at all has its first catalog approved as it is (bootstrapping). */
  @IsOptional() @IsBoolean() approveNewBackends?: boolean;
  /** Every backend's tools are listed again this often, so a change sent without `list_changed` is seen; 0: never. */
  @IsOptional() @IsInt() @Min(0) @Max(86_400) relistSeconds?: number;
}

/**
 * `stdio`: the caller of `centralmcp-router stdio`, the local user who launched it. Access rules
 * apply to this principal and its groups; without the block, to the anonymous principal.
 */
export class StdioDto {
  @IsString()
  @Matches(PRINCIPAL, { message: 'principal must be 1..128 characters: letters, digits and ._@:/+- (starting with a letter or digit)' })
  principal!: string;
  @IsOptional() @IsArray() @IsString({ each: true }) @Matches(GROUP, { each: true, message: GROUP_MESSAGE }) groups?: string[];
}

/** Everything but `backends`, whose map is validated entry by entry to name each field. */
export class FileConfigDto {
  @IsObject() backends!: Record<string, unknown>;
  @IsOptional() @ValidateNested() @Type(() => PolicyDto) policy?: PolicyDto;
  @IsOptional() @ValidateNested() @Type(() => GlobalRateLimitDto) rateLimit?: GlobalRateLimitDto;
  /** A bucket of this size for each principal (architecture §10); its maxWaitMs defaults to the global one's. */
  @IsOptional() @ValidateNested() @Type(() => RateLimitDto) principalRateLimit?: RateLimitDto;
  @IsOptional() @ValidateNested() @Type(() => AuthDto) auth?: AuthDto;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => AccessRuleDto) access?: AccessRuleDto[];
  @IsOptional() @ValidateNested() @Type(() => AuditDto) audit?: AuditDto;
  @IsOptional() @ValidateNested() @Type(() => DiscoveryDto) discovery?: DiscoveryDto;
  @IsOptional() @ValidateNested() @Type(() => TrustDto) trust?: TrustDto;
  @IsOptional() @ValidateNested() @Type(() => WritesDto) writes?: WritesDto;
  @IsOptional() @ValidateNested() @Type(() => StdioDto) stdio?: StdioDto;
  @IsOptional() @ValidateNested() @Type(() => PublishDto) publish?: PublishDto;
}

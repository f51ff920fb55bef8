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
} from 'class-validator';
import { JWT_ALGORITHMS } from './config.types';

/** The shapes of the config file (architecture §3), validated with class-validator at boot. */

export class RateLimitDto {
  @IsNumber() @Min(0.001) @Max(1_000_000) ratePerSecond!: number;
  @IsInt() @Min(1) @Max(1_000_000) burst!: number;
  @IsOptional() @IsInt() @Min(0) @Max(600_000) maxWaitMs?: number;
}

/** `rateLimit.redis` (issue 15): the shared store's connection and failure policy. */
export class RedisStoreDto {
  // The message never repeats the value: the URL may hold a password.
  @IsString() @Matches(/^rediss?:\/\/[^\s]+$/, { message: 'url must be a redis:// or rediss:// URL (value not shown: it may hold a password)' })
  url!: string;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(100) keyPrefix?: string;
  @IsOptional() @IsInt() @Min(100) @Max(60_000) connectTimeoutMs?: number;
  @IsOptional() @IsInt() @Min(10) @Max(10_000) commandTimeoutMs?: number;
  @IsOptional() @IsIn(['open', 'closed']) fail?: 'open' | 'closed';
  @IsOptional() @IsInt() @Min(1) @Max(1_000) replicas?: number;
}

/**
 * The file's top-level `rateLimit`: the global bucket (rate and burst together, or neither) and
 * where every bucket lives.
 */
export class GlobalRateLimitDto {
  @ValidateIf((o: GlobalRateLimitDto) => o.ratePerSecond !== undefined || o.burst !== undefined)
  @IsNumber() @Min(0.001) @Max(1_000_000) ratePerSecond?: number;
  @ValidateIf((o: GlobalRateLimitDto) => o.ratePerSecond !== undefined || o.burst !== undefined)
  @IsInt() @Min(1) @Max(1_000_000) burst?: number;
  @IsOptional() @IsInt() @Min(0) @Max(600_000) maxWaitMs?: number;
  @IsOptional() @IsIn(['memory', 'redis']) store?: 'memory' | 'redis';
  @IsOptional() @ValidateNested() @Type(() => RedisStoreDto) redis?: RedisStoreDto;
}

export class BackendDto {
  @IsIn(['stdio', 'http', 'sse']) transport!: 'stdio' | 'http' | 'sse';
  @IsOptional() @IsBoolean() required?: boolean;
  @IsOptional() @IsInt() @Min(100) @Max(600_000) timeoutMs?: number;
  @IsOptional() @ValidateNested() @Type(() => RateLimitDto) rateLimit?: RateLimitDto;
}

export class StdioBackendDto extends BackendDto {
  @IsString() @MinLength(1) command!: string;
  @IsOptional() @IsArray() @IsString({ each: true }) args?: string[];
  @IsOptional() @IsObject() env?: Record<string, string>;
  @IsOptional() @IsString() @MinLength(1) cwd?: string;
  @IsOptional() @IsIn(['auto', 'legacy', 'modern']) era?: 'auto' | 'legacy' | 'modern';
}

export class HttpBackendDto extends BackendDto {
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }) url!: string;
  @IsOptional() @IsObject() headers?: Record<string, string>;
  @IsOptional() @IsIn(['auto', 'legacy', 'modern']) era?: 'auto' | 'legacy' | 'modern';
}

export class ReadOnlyPolicyDto {
  @IsOptional() @IsArray() @IsString({ each: true }) allow?: string[];
  @IsOptional() @IsArray() @IsString({ each: true }) deny?: string[];
}

export class PolicyDto {
  @IsOptional() @ValidateNested() @Type(() => ReadOnlyPolicyDto) readOnly?: ReadOnlyPolicyDto;
}

/**
 * A principal lands in audit lines and cursor bindings: a short token with no spaces or controls
 * keeps both unambiguous. The operator picks it, so the rule costs nothing.
 */
const PRINCIPAL = /^[A-Za-z0-9][A-Za-z0-9._@:\/+-]{0,127}$/;
/**
 * Groups must equal what an identity provider puts in its groups claim (Keycloak's `/org/readers`,
 * Entra's GUIDs, AD's `Domain Users`), so any printable text is accepted; only controls and
 * invisible format characters are refused, since they would make two rules look alike.
 */
const GROUP = /^(?![\s]*$)[^\p{Cc}\p{Cf}]{1,256}$/u;
const GROUP_MESSAGE = 'each group must be 1..256 printable characters';

export class ApiKeyDto {
  @IsString()
  @Matches(PRINCIPAL, { message: 'principal must be 1..128 characters: letters, digits and ._@:/+- (starting with a letter or digit)' })
  principal!: string;
  @IsString() @Matches(/^[0-9a-fA-F]{64}$/, { message: 'sha256 must be 64 hex digits (the SHA-256 of the key, never the key)' }) sha256!: string;
  @IsOptional() @IsArray() @IsString({ each: true }) @Matches(GROUP, { each: true, message: GROUP_MESSAGE }) groups?: string[];
}

export class JwtDto {
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }) issuer!: string;
  // RFC 8707 / MCP authorization: the audience is this server's canonical URL, which is also the
  // `resource` of its RFC 9728 metadata.
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }) audience!: string;
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }) jwksUri!: string;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(200) groupsClaim?: string;
  @IsOptional() @IsArray() @ArrayNotEmpty() @IsIn(JWT_ALGORITHMS, { each: true, message: `each algorithm must be one of ${JWT_ALGORITHMS.join(', ')} (never none or HS*)` })
  algorithms?: string[];
  @IsOptional() @IsInt() @Min(0) @Max(300) clockToleranceSeconds?: number;
}

export class AuthDto {
  @IsIn(['none', 'apiKeys', 'jwt']) mode!: 'none' | 'apiKeys' | 'jwt';
  @IsOptional() @IsBoolean() allowInsecure?: boolean;
  @IsOptional() @IsArray() @ArrayMaxSize(10_000) @ValidateNested({ each: true }) @Type(() => ApiKeyDto) apiKeys?: ApiKeyDto[];
  @IsOptional() @ValidateNested() @Type(() => JwtDto) jwt?: JwtDto;
}

export class AccessRuleDto {
  /** `*` matches every principal, including one with no groups (the anonymous caller of mode `none`). */
  @IsArray() @ArrayNotEmpty() @IsString({ each: true }) @Matches(GROUP, { each: true, message: GROUP_MESSAGE }) groups!: string[];
  @IsArray() @IsString({ each: true }) @MinLength(1, { each: true }) allow!: string[];
  /** What these groups may also call through `invoke_tool`, within `writes.allow` (issue 14). */
  @IsOptional() @IsArray() @IsString({ each: true }) @MinLength(1, { each: true }) write?: string[];
}

/** `writes` (issue 14, part 2): the write path, off unless enabled. */
export class WritesDto {
  @IsOptional() @IsBoolean() enabled?: boolean;
  @IsOptional() @IsArray() @IsString({ each: true }) @MinLength(1, { each: true }) allow?: string[];
  @IsOptional() @IsArray() @IsString({ each: true }) @MinLength(1, { each: true }) deny?: string[];
}

export class AuditDto {
  @IsIn(['stdout', 'file']) sink!: 'stdout' | 'file';
  @ValidateIf((o: AuditDto) => o.sink === 'file' || o.path !== undefined) @IsString() @MinLength(1) path?: string;
}

/** An OpenAI-compatible embeddings endpoint (`discovery.embeddings`). */
export class EmbeddingsDto {
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }) url!: string;
  @IsString() @MinLength(1) @MaxLength(200) model!: string;
  @IsOptional() @IsObject() headers?: Record<string, string>;
  @IsOptional() @IsInt() @Min(50) @Max(60_000) timeoutMs?: number;
  @IsOptional() @IsInt() @Min(100) @Max(600_000) batchTimeoutMs?: number;
  @IsOptional() @IsInt() @Min(1) @Max(2048) batchSize?: number;
}

export class DiscoveryDto {
  @IsOptional() @ValidateNested() @Type(() => EmbeddingsDto) embeddings?: EmbeddingsDto;
}

/** `trust` (issue 14): pinned tool definitions. */
export class TrustDto {
  @IsOptional() @IsIn(['off', 'warn', 'enforce']) mode?: 'off' | 'warn' | 'enforce';
  @IsOptional() @IsString() @MinLength(1) pinsFile?: string;
  @IsOptional() @IsBoolean() approveNewBackends?: boolean;
  @IsOptional() @IsInt() @Min(0) @Max(86_400) relistSeconds?: number;
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
}

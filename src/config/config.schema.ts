import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';

/** The shapes of the config file (DESIGN §3), validated with class-validator at boot. */

export class RateLimitDto {
  @IsNumber() @Min(0.001) @Max(1_000_000) ratePerSecond!: number;
  @IsInt() @Min(1) @Max(1_000_000) burst!: number;
  @IsOptional() @IsInt() @Min(0) @Max(600_000) maxWaitMs?: number;
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
}

export class HttpBackendDto extends BackendDto {
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true }) url!: string;
  @IsOptional() @IsObject() headers?: Record<string, string>;
}

export class ReadOnlyPolicyDto {
  @IsOptional() @IsArray() @IsString({ each: true }) allow?: string[];
  @IsOptional() @IsArray() @IsString({ each: true }) deny?: string[];
}

export class PolicyDto {
  @IsOptional() @ValidateNested() @Type(() => ReadOnlyPolicyDto) readOnly?: ReadOnlyPolicyDto;
}

/** Everything but `backends`, whose map is validated entry by entry to name each field. */
export class FileConfigDto {
  @IsObject() backends!: Record<string, unknown>;
  @IsOptional() @ValidateNested() @Type(() => PolicyDto) policy?: PolicyDto;
  @IsOptional() @ValidateNested() @Type(() => RateLimitDto) rateLimit?: RateLimitDto;
}

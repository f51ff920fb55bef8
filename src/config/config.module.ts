import { Global, Module, type DynamicModule } from '@nestjs/common';
import { loadConfig } from './config.loader';
import { ConfigService } from './config.service';
import {
  ACCESS_CONFIG,
  AUDIT_CONFIG,
  AUTH_CONFIG,
  BACKENDS_CONFIG,
  BUDGET_CONFIG,
  CONFIG_LOADER,
  CURSOR_CONFIG,
  DISCOVERY_CONFIG,
  HTTP_CONFIG,
  LIFECYCLE_CONFIG,
  POLICY_CONFIG,
  RATE_LIMIT_CONFIG,
  RATE_LIMIT_STORE_CONFIG,
  TRUST_CONFIG,
  WRITES_CONFIG,
  PUBLISH_CONFIG,
} from './config.tokens';
import { PUBLISH_DEFAULTS, TRUST_DEFAULTS, WRITES_DEFAULTS } from './config.defaults';
import type {
  AccessConfig,
  AuditConfig,
  AuthConfig,
  DiscoveryConfig,
  LifecycleConfig,
  RateLimitConfig,
  RateLimitStoreConfig,
  RouterConfig,
} from './config.types';
import { DEFAULT_DRAIN_TIMEOUT_MS } from './domain/env-settings';

/**
 * Reads the environment and the config file. The only place in the code base that reads
 * `process.env`; everything else receives typed slices by token. `configPath` (a command line's
 * `--config`) stands in for CENTRALMCP_ROUTER_CONFIG.
 */
export function loadConfigFromEnvironment(configPath?: string): RouterConfig {
  return loadConfig(configPath === undefined ? process.env : { ...process.env, CENTRALMCP_ROUTER_CONFIG: configPath });
}

const DEFAULT_LIFECYCLE: LifecycleConfig = { drainTimeoutMs: DEFAULT_DRAIN_TIMEOUT_MS };
// A config built in code (tests) is the loopback developer setup: no auth, no rules, audit to stdout.
// The loader always sets all three, and refuses mode `none` off loopback.
const DEFAULT_AUTH: AuthConfig = { mode: 'none', allowInsecure: false };
const DEFAULT_ACCESS: AccessConfig = {};
const DEFAULT_AUDIT: AuditConfig = { sink: 'stdout' };
const DEFAULT_DISCOVERY: DiscoveryConfig = {};
const DEFAULT_STORE: RateLimitStoreConfig = { kind: 'memory' };

/**
 * Provides the validated config and its slices. Global: every module reads config, none owns it.
 * The slices are the config at boot; a module that applies a reloadable section also subscribes to
 * ConfigService, which holds the config in force, and CONFIG_LOADER reads the file again.
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: RouterConfig): DynamicModule {
    const slices = [
      { provide: HTTP_CONFIG, useValue: config.http },
      { provide: BUDGET_CONFIG, useValue: config.budgets },
      { provide: CURSOR_CONFIG, useValue: config.cursor },
      { provide: BACKENDS_CONFIG, useValue: config.backends },
      { provide: RATE_LIMIT_CONFIG, useValue: { rateLimit: config.rateLimit, principalRateLimit: config.principalRateLimit } satisfies RateLimitConfig },
      { provide: RATE_LIMIT_STORE_CONFIG, useValue: config.rateLimitStore ?? DEFAULT_STORE },
      { provide: POLICY_CONFIG, useValue: config.policy },
      { provide: LIFECYCLE_CONFIG, useValue: config.lifecycle ?? DEFAULT_LIFECYCLE },
      { provide: AUTH_CONFIG, useValue: config.auth ?? DEFAULT_AUTH },
      { provide: ACCESS_CONFIG, useValue: config.access ?? DEFAULT_ACCESS },
      { provide: AUDIT_CONFIG, useValue: config.audit ?? DEFAULT_AUDIT },
      { provide: DISCOVERY_CONFIG, useValue: config.discovery ?? DEFAULT_DISCOVERY },
      { provide: TRUST_CONFIG, useValue: config.trust ?? TRUST_DEFAULTS },
      { provide: WRITES_CONFIG, useValue: config.writes ?? WRITES_DEFAULTS },
      { provide: PUBLISH_CONFIG, useValue: config.publish ?? PUBLISH_DEFAULTS },
    ];
    const providers = [
      ...slices,
      { provide: ConfigService, useValue: new ConfigService(config) },
      { provide: CONFIG_LOADER, useValue: loadConfigFromEnvironment },
    ];
    return {
      module: ConfigModule,
      providers,
      exports: providers.map((s) => s.provide),
    };
  }
}

import { Global, Module, type DynamicModule } from '@nestjs/common';
import { loadConfig } from './config.loader';
import {
  ACCESS_CONFIG,
  AUDIT_CONFIG,
  AUTH_CONFIG,
  BACKENDS_CONFIG,
  BUDGET_CONFIG,
  CURSOR_CONFIG,
  DISCOVERY_CONFIG,
  HTTP_CONFIG,
  LIFECYCLE_CONFIG,
  POLICY_CONFIG,
  ROUTER_CONFIG,
  TRUST_CONFIG,
  WRITES_CONFIG,
} from './config.tokens';
import type { AccessConfig, AuditConfig, AuthConfig, DiscoveryConfig, LifecycleConfig, RouterConfig, TrustConfig, WritesConfig } from './config.types';
import { DEFAULT_DRAIN_TIMEOUT_MS } from './domain/env-settings';
import { DEFAULT_RELIST_SECONDS } from './domain/trust-settings';

/**
 * Reads the environment and the config file. The only place in the code base that reads
 * `process.env`; everything else receives typed slices by token.
 */
export function loadConfigFromEnvironment(): RouterConfig {
  return loadConfig(process.env);
}

const DEFAULT_LIFECYCLE: LifecycleConfig = { drainTimeoutMs: DEFAULT_DRAIN_TIMEOUT_MS };
// A config built in code (tests) is the loopback developer setup: no auth, no rules, audit to stdout.
// The loader always sets all three, and refuses mode `none` off loopback.
const DEFAULT_AUTH: AuthConfig = { mode: 'none', allowInsecure: false };
const DEFAULT_ACCESS: AccessConfig = {};
const DEFAULT_AUDIT: AuditConfig = { sink: 'stdout' };
const DEFAULT_DISCOVERY: DiscoveryConfig = {};
const DEFAULT_WRITES: WritesConfig = { enabled: false, allow: [], deny: [] };
const DEFAULT_TRUST: TrustConfig = { mode: 'off', approveNewBackends: false, relistSeconds: DEFAULT_RELIST_SECONDS };

/** Provides the validated config and its slices. Global: every module reads config, none owns it. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: RouterConfig): DynamicModule {
    const slices = [
      { provide: HTTP_CONFIG, useValue: config.http },
      { provide: BUDGET_CONFIG, useValue: config.budgets },
      { provide: CURSOR_CONFIG, useValue: config.cursor },
      { provide: BACKENDS_CONFIG, useValue: config.backends },
      { provide: POLICY_CONFIG, useValue: config.policy },
      { provide: LIFECYCLE_CONFIG, useValue: config.lifecycle ?? DEFAULT_LIFECYCLE },
      { provide: AUTH_CONFIG, useValue: config.auth ?? DEFAULT_AUTH },
      { provide: ACCESS_CONFIG, useValue: config.access ?? DEFAULT_ACCESS },
      { provide: AUDIT_CONFIG, useValue: config.audit ?? DEFAULT_AUDIT },
      { provide: DISCOVERY_CONFIG, useValue: config.discovery ?? DEFAULT_DISCOVERY },
      { provide: TRUST_CONFIG, useValue: config.trust ?? DEFAULT_TRUST },
      { provide: WRITES_CONFIG, useValue: config.writes ?? DEFAULT_WRITES },
    ];
    return {
      module: ConfigModule,
      providers: [{ provide: ROUTER_CONFIG, useValue: config }, ...slices],
      exports: [ROUTER_CONFIG, ...slices.map((s) => s.provide)],
    };
  }
}

import { Inject, Injectable } from '@nestjs/common';
import type { Principal } from '../common/principal';
import { ConfigService } from '../config/config.service';
import { ACCESS_CONFIG, AUTH_CONFIG } from '../config/config.tokens';
import type { AccessConfig, AuthConfig, AuthMode } from '../config/config.types';
import type { CatalogTool } from '../registry/registry.types';
import { accessIdentity, compileAccess, mayCall, mayUseBackend, mayUseWholeBackend, mayWrite, type CompiledAccess } from './domain/access-policy';

/**
 * Who may see and call what (architecture §10), with the rules compiled at boot and again at each
 * reload. One function decides both discovery and calls, so `find_tool` never shows a tool a call
 * would refuse, and a refused call can answer exactly like an unknown tool.
 */
@Injectable()
export class AccessService {
  private compiled: CompiledAccess;
  private readonly mode: AuthMode;

  // The auth mode is not reloaded (it takes a restart): only the rules are.
  constructor(@Inject(ACCESS_CONFIG) access: AccessConfig, @Inject(AUTH_CONFIG) auth: AuthConfig, configs: ConfigService) {
    this.compiled = compileAccess(access.rules);
    this.mode = auth.mode;
    configs.onReload((next) => (this.compiled = compileAccess(next.access?.rules)));
  }

  /** Whether `principal` may see and call `backend:tool`. */
  mayCall(principal: Principal, backend: string, tool: string): boolean {
    return mayCall(principal, backend, tool, this.compiled, this.mode);
  }

  /** Whether `principal` may see and call a catalog tool. */
  mayCallTool(principal: Principal, tool: Pick<CatalogTool, 'backend' | 'name'>): boolean {
    return this.mayCall(principal, tool.backend, tool.name);
  }

  /** Whether some rule of `principal`'s opens any tool of `backend` (for a server with no catalog to judge by). */
  mayUseBackend(principal: Principal, backend: string): boolean {
    return mayUseBackend(principal, backend, this.compiled, this.mode);
  }

  /** Whether `principal` may list and use `backend`'s resources and prompts (architecture §16). */
  mayUseOfferings(principal: Principal, backend: string): boolean {
    return mayUseWholeBackend(principal, backend, this.compiled, this.mode);
  }

  /**
   * A key that two principals share exactly when the current rules allow them the same: a cache of
   * what their access alone decides (a published tool list) may be shared under it. It names a
   * rule by its place, so such a cache must be dropped when the rules are reloaded.
   */
  identityOf(principal: Principal): string {
    return accessIdentity(principal, this.compiled, this.mode);
  }

  /** Whether `principal` may call a catalog tool through `invoke_tool` (the write path). */
  mayWriteTool(principal: Principal, tool: Pick<CatalogTool, 'backend' | 'name'>): boolean {
    return mayWrite(principal, tool.backend, tool.name, this.compiled, this.mode);
  }
}

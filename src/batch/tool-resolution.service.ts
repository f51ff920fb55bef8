import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service';
import { CallableService } from '../access/callable.service';
import { BackendsService } from '../backends/backends.service';
import { backendFailure } from '../backends/domain/backend-failures';
import type { Principal } from '../common/principal';
import { RouterError } from '../common/router-error';
import { argumentsDigest, canonicalArguments } from '../cursor/domain/canonical';
import type { CatalogTool } from '../registry/registry.types';
import { RegistryService } from '../registry/registry.service';
import { TrustService } from '../trust/trust.service';
import { failedCall, type FailedCall } from './domain/call-outcome';
import { ambiguousTool, noCallableTwin, toolsNotSettled, unknownTool } from './domain/seam-refusals';

/** A name resolved to one trusted tool, or refused with the name and server to answer under. */
export type Resolved = { kind: 'found'; tool: CatalogTool } | { kind: 'refused'; error: RouterError; name: string; server: string | null };

/** A call's tool found for its caller, with its arguments in canonical form and their digest. */
export type ResolvedCall = { kind: 'found'; tool: CatalogTool; args: Record<string, unknown>; digest: string } | FailedCall;

/**
 * The part of the seam reads and writes share (architecture §12, steps 3 to 5): resolve among the
 * tools `permitted` admits (a name is ambiguous only among those the caller can call now), wait
 * for a refresh the backend announced, then refuse a quarantined definition before any gate reads
 * its annotations (they are what cannot be trusted). A call naming a configured server that is
 * not connected answers `backend_unavailable` with its state, not `unknown_tool`: its tools are
 * not known while it is away, and the model should try again rather than look elsewhere.
 */
@Injectable()
export class ToolResolutionService {
  constructor(
    private readonly registry: RegistryService,
    private readonly backends: BackendsService,
    private readonly trust: TrustService,
    private readonly access: AccessService,
    private readonly callable: CallableService,
  ) {}

  /**
   * One checked call up to its tool: arguments made canonical (what cursors, confirmations and the
   * audit digest are bound to), then resolved among the tools `permitted` admits. A refusal is
   * the call's answer already, under the name and server it resolved to. A promise only while a
   * backend's announced change of tools is awaited: every other call is resolved without one.
   */
  resolveCall(
    call: { name: string; server?: string; arguments: Record<string, unknown> },
    principal: Principal,
    permitted: (tool: CatalogTool) => boolean,
  ): ResolvedCall | Promise<ResolvedCall> {
    const args = canonicalArguments(call.arguments);
    const digest = argumentsDigest(args);
    const found = this.resolve(call.name, call.server, principal, permitted);
    return found instanceof Promise ? found.then((settled) => resolvedCall(settled, args, digest)) : resolvedCall(found, args, digest);
  }

  /** The tool a name resolves to for this caller; a promise only while its backend's tools settle. */
  resolve(name: string, server: string | undefined, principal: Principal, permitted: (tool: CatalogTool) => boolean): Resolved | Promise<Resolved> {
    const callable = (tool: CatalogTool) => this.callable.callable(principal, tool);
    const resolution = this.registry.resolve(name, server, permitted, callable);
    if (resolution.kind === 'found') {
      // A backend that announced a change of its tools is judged on the tools it announced.
      const settling = this.backends.toolsSettled(resolution.tool.backend);
      if (settling !== undefined) {
        const { name: toolName, backend } = resolution.tool;
        return settling.then((settled) =>
          settled
            ? this.judge(this.registry.resolve(name, server, permitted, callable), name, server, principal, permitted)
            : { kind: 'refused', error: toolsNotSettled(), name: toolName, server: backend },
        );
      }
    }
    return this.judge(resolution, name, server, principal, permitted);
  }

  /** What a resolution comes to: the tool, or why the call is refused. */
  private judge(
    resolution: ReturnType<RegistryService['resolve']>,
    name: string,
    server: string | undefined,
    principal: Principal,
    permitted: (tool: CatalogTool) => boolean,
  ): Resolved {
    switch (resolution.kind) {
      case 'unknown': {
        if (server === undefined) return { kind: 'refused', error: unknownTool(undefined, this.notConnected(principal, permitted)), name, server: null };
        const away = this.unavailable(server, principal, permitted);
        return { kind: 'refused', error: away ?? unknownTool(server), name, server };
      }
      case 'ambiguous':
        return { kind: 'refused', error: ambiguousTool(resolution.servers), name, server: null };
      case 'refused':
        return { kind: 'refused', error: noCallableTwin(), name, server: null };
      case 'found': {
        const { tool } = resolution;
        const quarantine = this.trust.quarantineReason(tool);
        if (quarantine !== undefined) return { kind: 'refused', error: new RouterError('blocked', quarantine), name: tool.name, server: tool.backend };
        return { kind: 'found', tool };
      }
    }
  }

  /**
   * `backend_unavailable` when `server` is a configured backend that is not connected and one the
   * caller may use (a tool of its last catalog is permitted, or, with no catalog yet, an access
   * rule opens it); otherwise undefined, and the name is simply unknown there.
   */
  private unavailable(server: string, principal: Principal, permitted: (tool: CatalogTool) => boolean): RouterError | undefined {
    const state = this.backends.states().find((s) => s.name === server);
    if (state === undefined || state.status === 'up') return undefined;
    return this.usable(server, principal, permitted) ? backendFailure.notConnected(server, state.status) : undefined;
  }

  /** The configured backends the caller may use that are not connected now, with their state. */
  private notConnected(principal: Principal, permitted: (tool: CatalogTool) => boolean): { name: string; status: string }[] {
    return this.backends.states().filter((s) => s.status !== 'up' && this.usable(s.name, principal, permitted));
  }

  /** A tool of the server's last catalog is permitted, or, with no catalog yet, an access rule opens it. */
  private usable(server: string, principal: Principal, permitted: (tool: CatalogTool) => boolean): boolean {
    return this.registry.hasCatalog(server) ? this.registry.toolsOf(server).some(permitted) : this.access.mayUseBackend(principal, server);
  }
}

function resolvedCall(found: Resolved, args: Record<string, unknown>, digest: string): ResolvedCall {
  if (found.kind === 'refused') return failedCall(found.name, found.server, found.error, digest);
  return { kind: 'found', tool: found.tool, args, digest };
}

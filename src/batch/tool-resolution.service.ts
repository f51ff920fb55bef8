import { Injectable } from '@nestjs/common';
import { BackendsService } from '../backends/backends.service';
import { RouterError } from '../common/router-error';
import { argumentsDigest, canonicalArguments } from '../cursor/domain/canonical';
import type { CatalogTool } from '../registry/registry.types';
import { RegistryService } from '../registry/registry.service';
import { TrustService } from '../trust/trust.service';
import { failedCall, type FailedCall } from './domain/call-outcome';
import { ambiguousTool, toolsNotSettled, unknownTool } from './domain/seam-refusals';

/** A name resolved to one trusted tool, or refused with the name and server to answer under. */
export type Resolved = { kind: 'found'; tool: CatalogTool } | { kind: 'refused'; error: RouterError; name: string; server: string | null };

/** A call's tool found for its caller, with its arguments in canonical form and their digest. */
export type ResolvedCall = { kind: 'found'; tool: CatalogTool; args: Record<string, unknown>; digest: string } | FailedCall;

/**
 * The part of the seam reads and writes share (architecture §12, steps 3 to 5): resolve among the
 * tools `permitted` admits, wait for a refresh the backend announced, then refuse a quarantined
 * definition before any gate reads its annotations (they are what cannot be trusted).
 */
@Injectable()
export class ToolResolutionService {
  constructor(
    private readonly registry: RegistryService,
    private readonly backends: BackendsService,
    private readonly trust: TrustService,
  ) {}

  /**
   * One checked call up to its tool: arguments made canonical (what cursors, confirmations and the
   * audit digest are bound to), then resolved among the tools `permitted` admits. A refusal is
   * the call's answer already, under the name and server it resolved to.
   */
  async resolveCall(
    call: { name: string; server?: string; arguments: Record<string, unknown> },
    permitted: (tool: CatalogTool) => boolean,
  ): Promise<ResolvedCall> {
    const args = canonicalArguments(call.arguments);
    const digest = argumentsDigest(args);
    const found = await this.resolve(call.name, call.server, permitted);
    if (found.kind === 'refused') return failedCall(found.name, found.server, found.error, digest);
    return { kind: 'found', tool: found.tool, args, digest };
  }

  async resolve(name: string, server: string | undefined, permitted: (tool: CatalogTool) => boolean): Promise<Resolved> {
    let resolution = this.registry.resolve(name, server, permitted);
    if (resolution.kind === 'found') {
      // A backend that announced a change of its tools is judged on the tools it announced.
      const settling = this.backends.toolsSettled(resolution.tool.backend);
      if (settling !== undefined) {
        const { name: toolName, backend } = resolution.tool;
        if (!(await settling)) return { kind: 'refused', error: toolsNotSettled(), name: toolName, server: backend };
        resolution = this.registry.resolve(name, server, permitted);
      }
    }
    switch (resolution.kind) {
      case 'unknown':
        return { kind: 'refused', error: unknownTool(server), name, server: server ?? null };
      case 'ambiguous':
        return { kind: 'refused', error: ambiguousTool(resolution.servers), name, server: null };
      case 'found': {
        const { tool } = resolution;
        const quarantine = this.trust.quarantineReason(tool);
        if (quarantine !== undefined) return { kind: 'refused', error: new RouterError('blocked', quarantine), name: tool.name, server: tool.backend };
        return { kind: 'found', tool };
      }
    }
  }
}

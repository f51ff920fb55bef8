import { Injectable } from '@nestjs/common';
import { BackendsService } from '../backends/backends.service';
import { RouterError } from '../common/router-error';
import type { CatalogTool } from '../registry/registry.types';
import { RegistryService } from '../registry/registry.service';
import { TrustService } from '../trust/trust.service';
import { ambiguousTool, toolsNotSettled, unknownTool } from './domain/seam-refusals';

/** A name resolved to one trusted tool, or refused with the name and server to answer under. */
export type Resolved = { kind: 'found'; tool: CatalogTool } | { kind: 'refused'; error: RouterError; name: string; server: string | null };

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

import { Injectable } from '@nestjs/common';
import type { Principal } from '../common/principal';
import { GateService } from '../gate/gate.service';
import type { CatalogTool } from '../registry/registry.types';
import { TrustService } from '../trust/trust.service';
import { AccessService } from './access.service';

/** The published tool through which a caller can call a catalog tool. */
export type Entrypoint = 'invoke_read_tool' | 'invoke_tool';

/**
 * What a caller can call now, through some published tool: allowed to it (access), not
 * quarantined (trust), and let through by the gate of `invoke_read_tool` or, with writes enabled,
 * of `invoke_tool`. One place decides it, so `find_tool` offers exactly what resolution counts
 * (architecture §4, §10).
 */
@Injectable()
export class CallableService {
  constructor(
    private readonly access: AccessService,
    private readonly gate: GateService,
    private readonly trust: TrustService,
  ) {}

  /** The published tool that would call `tool` for `principal`, or undefined when none would. */
  entrypointFor(principal: Principal, tool: CatalogTool): Entrypoint | undefined {
    if (this.trust.quarantineReason(tool) !== undefined) return undefined;
    if (this.gate.decide(tool).readOnly && this.access.mayCallTool(principal, tool)) return 'invoke_read_tool';
    if (this.gate.decideWrite(tool).writable && this.access.mayWriteTool(principal, tool)) return 'invoke_tool';
    return undefined;
  }

  /** Whether `principal` can call `tool` through some published tool. */
  callable(principal: Principal, tool: CatalogTool): boolean {
    return this.entrypointFor(principal, tool) !== undefined;
  }

  /**
   * A tool the caller sees but cannot call only because writes are off (`writes.enabled: false`):
   * not read-only, neither quarantined nor denied by the operator's write policy.
   */
  heldBackByWritesOff(principal: Principal, tool: CatalogTool): boolean {
    if (this.gate.writesEnabled || !this.access.mayCallTool(principal, tool)) return false;
    if (this.trust.quarantineReason(tool) !== undefined) return false;
    return this.gate.decideWrite(tool).reason === 'not_in_writes_allow';
  }
}

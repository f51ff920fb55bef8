import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '../config/config.service';
import { WRITES_DEFAULTS } from '../config/config.defaults';
import { POLICY_CONFIG, WRITES_CONFIG } from '../config/config.tokens';
import type { RouterConfig, WritesConfig } from '../config/config.types';
import type { CatalogTool } from '../registry/registry.types';
import { compilePolicy, decideReadOnly, type CompiledPolicy, type GateDecision } from './domain/read-only-policy';
import { compileWritePolicy, decideWrite, type CompiledWritePolicy, type WriteDecision } from './domain/write-policy';

/**
 * The gate: whether a tool may be called through the read path (architecture §4) and whether it
 * may be written (§11.2), with the operator's `policy.readOnly` and `writes` globs compiled at boot
 * and again at each reload, which applies to every decision after it.
 */
@Injectable()
export class GateService {
  private policy: CompiledPolicy;
  private writes: CompiledWritePolicy;
  /** Whether `invoke_tool` is published at all (`writes.enabled`): fixed at boot, a reload of it needs a restart. */
  readonly writesEnabled: boolean;

  constructor(@Inject(POLICY_CONFIG) config: RouterConfig['policy'], @Inject(WRITES_CONFIG) writes: WritesConfig, configs: ConfigService) {
    this.policy = compilePolicy(config.readOnly);
    this.writes = compileWritePolicy(writes);
    this.writesEnabled = writes.enabled;
    configs.onReload((next) => {
      this.policy = compilePolicy(next.policy.readOnly);
      this.writes = compileWritePolicy(next.writes ?? WRITES_DEFAULTS);
    });
  }

  /** The read decision: is this tool read-only? */
  decide(tool: CatalogTool): GateDecision {
    return decideReadOnly(tool.backend, tool.name, tool.annotations, this.policy);
  }

  /** The write decision: may `invoke_tool` call this tool? */
  decideWrite(tool: CatalogTool): WriteDecision {
    return decideWrite(tool.backend, tool.name, tool.annotations, this.decide(tool), this.writes);
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { POLICY_CONFIG } from '../config/config.tokens';
import type { RouterConfig } from '../config/config.types';
import type { CatalogTool } from '../registry/registry.types';
import { compilePolicy, decideReadOnly, type CompiledPolicy, type GateDecision } from './domain/read-only-policy';

/** The read-only gate with the operator's policy compiled once at boot. */
@Injectable()
export class GateService {
  private readonly policy: CompiledPolicy;

  constructor(@Inject(POLICY_CONFIG) config: RouterConfig['policy']) {
    this.policy = compilePolicy(config.readOnly);
  }

  decide(tool: CatalogTool): GateDecision {
    return decideReadOnly(tool.backend, tool.name, tool.annotations, this.policy);
  }
}

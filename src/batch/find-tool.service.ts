import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service';
import type { Principal } from '../common/principal';
import { GateService } from '../gate/gate.service';
import { RegistryService } from '../registry/registry.service';
import { cleanText } from '../registry/domain/sanitize';
import type { CatalogTool } from '../registry/registry.types';

/** One `find_tool` hit (DESIGN §1). `read_only` is the gate's decision, not the raw hint. */
export interface ToolHit {
  name: string;
  server: string;
  description: string;
  params: ParamSummary[];
  read_only: boolean;
  destructive: boolean;
  idempotent: boolean;
  score: number;
  schema?: Record<string, unknown>;
}

export interface ParamSummary {
  name: string;
  type: string;
  required: boolean;
}

export interface FindToolQuery {
  query: string;
  topK: number;
  server?: string;
  includeSchema: boolean;
}

const MAX_DESCRIPTION_CHARS = 300;

/** Ranked search over the catalog, reported with what the read path will decide for each hit. */
@Injectable()
export class FindToolService {
  constructor(
    private readonly registry: RegistryService,
    private readonly gate: GateService,
    private readonly access: AccessService,
  ) {}

  /** Hits among the tools `principal` may call only: discovery never shows what a call refuses. */
  async find(q: FindToolQuery, principal: Principal): Promise<ToolHit[]> {
    const visible = (tool: CatalogTool) => this.access.mayCallTool(principal, tool);
    const ranked = await this.registry.search(q.query, q.topK, q.server, visible);
    return ranked.map(({ tool, score }) => this.hit(tool, score, q.includeSchema));
  }

  private hit(tool: CatalogTool, score: number, includeSchema: boolean): ToolHit {
    const readOnly = this.gate.decide(tool).readOnly;
    return {
      name: tool.name,
      server: tool.backend,
      description: cleanText(tool.description, MAX_DESCRIPTION_CHARS),
      params: paramsOf(tool.inputSchema),
      read_only: readOnly,
      // MCP defaults: a tool that is not read-only is assumed destructive and not idempotent.
      destructive: readOnly ? false : (tool.annotations?.destructiveHint ?? true),
      idempotent: readOnly ? true : (tool.annotations?.idempotentHint ?? false),
      score,
      ...(includeSchema ? { schema: tool.inputSchema } : {}),
    };
  }
}


function paramsOf(schema: Record<string, unknown>): ParamSummary[] {
  const properties = schema.properties;
  if (properties === null || typeof properties !== 'object') return [];
  const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]) : []);
  return Object.entries(properties as Record<string, { type?: unknown }>).map(([name, prop]) => ({
    name,
    type: typeof prop?.type === 'string' ? prop.type : Array.isArray(prop?.type) ? prop.type.join('|') : 'any',
    required: required.has(name),
  }));
}

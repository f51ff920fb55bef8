import { Injectable } from '@nestjs/common';
import { GateService } from '../gate/gate.service';
import { RegistryService } from '../registry/registry.service';
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
  ) {}

  find(q: FindToolQuery): ToolHit[] {
    return this.registry.search(q.query, q.topK, q.server).map(({ tool, score }) => this.hit(tool, score, q.includeSchema));
  }

  private hit(tool: CatalogTool, score: number, includeSchema: boolean): ToolHit {
    const readOnly = this.gate.decide(tool).readOnly;
    return {
      name: tool.name,
      server: tool.backend,
      description: trimDescription(tool.description),
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

function trimDescription(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length <= MAX_DESCRIPTION_CHARS ? oneLine : `${oneLine.slice(0, MAX_DESCRIPTION_CHARS - 1)}…`;
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

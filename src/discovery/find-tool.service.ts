import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service';
import { BackendsService } from '../backends/backends.service';
import { isJsonObject } from '../common/json-object';
import type { Principal } from '../common/principal';
import { GateService } from '../gate/gate.service';
import { RegistryService } from '../registry/registry.service';
import { cleanText, MAX_SHOWN_DESCRIPTION_CHARS } from '../registry/domain/sanitize';
import type { CatalogTool } from '../registry/registry.types';
import { TrustService } from '../trust/trust.service';
import { emptyCatalogNote, NO_MATCH_NOTE, serverSummary, unknownServerMessage, type ServerSummary } from './domain/find-answer';
import { ToolSearchService } from './tool-search.service';

/** One `find_tool` hit (architecture §1). `read_only` is the gate's decision, not the raw hint. */
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
  /** Trust mode `warn` only: why this tool's definition is not the approved one. */
  trust_warning?: string;
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

/**
 * `find_tool`'s answer: the hits, and, when none matches, a `note` saying why and `servers`
 * saying what there is, so a model is never left with an empty list and no way on.
 */
export interface FindToolAnswer {
  hits: ToolHit[];
  note?: string;
  servers?: ServerSummary[];
}

/** The answer, or why the query was refused (an `invalid_arguments` message). */
export type FindOutcome = { ok: true; answer: FindToolAnswer } | { ok: false; message: string };

/** Ranked search over the catalog, reported with what the read path will decide for each hit. */
@Injectable()
export class FindToolService {
  constructor(
    private readonly registry: RegistryService,
    private readonly searcher: ToolSearchService,
    private readonly gate: GateService,
    private readonly access: AccessService,
    private readonly backends: BackendsService,
    private readonly trust: TrustService,
  ) {}

  /**
   * Hits among the tools `principal` may call only: discovery never shows what a call refuses
   * (architecture §10), and the servers it names are those the caller may call a tool of. A `server`
   * the caller has no tool of is refused with the servers it has; a configured backend that has
   * not delivered a catalog yet answers no hits and says so.
   */
  async find(q: FindToolQuery, principal: Principal): Promise<FindOutcome> {
    // A quarantined tool is not offered: its description is what may have been poisoned.
    const visible = (tool: CatalogTool) => this.access.mayCallTool(principal, tool) && this.trust.quarantineReason(tool) === undefined;
    const states = this.backends.states();
    if (q.server !== undefined && !this.registry.toolsOf(q.server).some(visible)) {
      const state = states.find((s) => s.name === q.server);
      if (state !== undefined && !this.registry.hasCatalog(state.name)) {
        return { ok: true, answer: { hits: [], note: emptyCatalogNote([state]), servers: [serverSummary(state, [])] } };
      }
      return {
        ok: false,
        message: unknownServerMessage(
          this.servers(visible)
            .filter((s) => s.tools > 0)
            .map((s) => s.name),
        ),
      };
    }
    const found = await this.searcher.search(q.query, q.topK, q.server, visible);
    // A score of 0 is a browse: the query had no word to search by. Anything above matched.
    if (found.some((h) => h.score > 0)) return { ok: true, answer: { hits: found.map((h) => this.hit(h.tool, h.score, q.includeSchema)) } };
    const servers = this.servers(visible);
    const inScope = q.server === undefined ? servers : servers.filter((s) => s.name === q.server);
    if (inScope.every((s) => s.tools === 0)) {
      const notConnected = states.filter((s) => s.status !== 'up' && (q.server === undefined || s.name === q.server));
      return { ok: true, answer: { hits: [], note: emptyCatalogNote(notConnected), servers: notConnected.map((s) => serverSummary(s, [])) } };
    }
    const closest = found.length > 0 ? found : await this.searcher.search('', q.topK, q.server, visible);
    return {
      ok: true,
      answer: { hits: closest.map((h) => this.hit(h.tool, h.score, q.includeSchema)), note: NO_MATCH_NOTE, servers: servers.filter((s) => s.tools > 0) },
    };
  }

  /** Every configured backend with the tools of it `visible` admits, in configuration order. */
  private servers(visible: (tool: CatalogTool) => boolean): ServerSummary[] {
    return this.backends
      .states()
      .map((state) => serverSummary(state, this.registry.toolsOf(state.name).filter(visible)))
      .filter((s) => s.tools > 0 || !s.connected);
  }

  private hit(tool: CatalogTool, score: number, includeSchema: boolean): ToolHit {
    const readOnly = this.gate.decide(tool).readOnly;
    const warning = this.trust.warningFor(tool);
    return {
      name: tool.name,
      server: tool.backend,
      description: cleanText(tool.description, MAX_SHOWN_DESCRIPTION_CHARS),
      params: paramsOf(tool.inputSchema),
      read_only: readOnly,
      // MCP defaults: a tool that is not read-only is assumed destructive and not idempotent.
      destructive: readOnly ? false : (tool.annotations?.destructiveHint ?? true),
      idempotent: readOnly ? true : (tool.annotations?.idempotentHint ?? false),
      score,
      ...(includeSchema ? { schema: tool.inputSchema } : {}),
      ...(warning !== undefined ? { trust_warning: warning } : {}),
    };
  }
}

function paramsOf(schema: Record<string, unknown>): ParamSummary[] {
  const properties = schema.properties;
  if (properties === null || typeof properties !== 'object') return [];
  const required = new Set<unknown>(Array.isArray(schema.required) ? schema.required : []);
  // An array of properties lists them by index, as Object.entries reads it.
  return Object.entries(properties).map(([name, prop]: [string, unknown]) => {
    const type = isJsonObject(prop) ? prop.type : undefined;
    return {
      name,
      type: typeof type === 'string' ? type : Array.isArray(type) ? type.join('|') : 'any',
      required: required.has(name),
    };
  });
}

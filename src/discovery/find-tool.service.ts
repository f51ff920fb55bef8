import { Injectable } from '@nestjs/common';
import { AccessService } from '../access/access.service';
import { CallableService } from '../access/callable.service';
import type { BackendState } from '../backends/backends.types';
import { BackendsService } from '../backends/backends.service';
import { isJsonObject } from '../common/json-object';
import type { Principal } from '../common/principal';
import { GateService } from '../gate/gate.service';
import { learnedWords } from '../learning/domain/learned-words';
import { LearningService } from '../learning/learning.service';
import { RegistryService } from '../registry/registry.service';
import { cleanText, MAX_SHOWN_DESCRIPTION_CHARS } from '../registry/domain/sanitize';
import type { CatalogTool } from '../registry/registry.types';
import { TrustService } from '../trust/trust.service';
import { queryTerms } from './domain/terms';
import {
  emptyCatalogNote,
  NO_MATCH_NOTE,
  quarantineNote,
  serverSummary,
  unknownServerMessage,
  writesOffNote,
  type ServerSummary,
  type UnavailableServer,
} from './domain/find-answer';
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
  /** Servers the caller may use that are not connected now: their tools are missing or cannot be called. */
  unavailable_servers?: UnavailableServer[];
  /** Writes are off and tools that change things matched: why they are not among the hits. */
  writes_note?: string;
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
    private readonly callable: CallableService,
    private readonly learning: LearningService,
  ) {}

  /**
   * Hits among the tools `principal` can call now, through some published tool: discovery never
   * offers what a call refuses (architecture §10), neither a tool the caller may not call, nor a
   * quarantined one, nor one no published tool's gate lets through (a write while writes are off).
   * The servers it names are those the caller may call a tool of. A `server` the caller has no
   * tool of is refused with the servers it has; a configured backend that is not connected answers
   * no hits and says so. Every answer lists the servers the caller may use that are not connected.
   */
  async find(q: FindToolQuery, principal: Principal): Promise<FindOutcome> {
    const visible = (tool: CatalogTool) => this.callable.callable(principal, tool);
    const states = this.backends.states();
    const found = await this.answer(q, principal, states, visible);
    if (!found.ok) return found;
    const unavailable = states.filter((s) => s.status !== 'up' && this.mayUse(principal, s, visible)).map((s) => ({ name: s.name, state: s.status }));
    const answer = found.answer;
    return { ok: true, answer: unavailable.length > 0 ? { ...answer, unavailable_servers: unavailable } : answer };
  }

  private async answer(q: FindToolQuery, principal: Principal, states: BackendState[], visible: (tool: CatalogTool) => boolean): Promise<FindOutcome> {
    if (q.server !== undefined && !this.registry.toolsOf(q.server).some(visible)) {
      const state = states.find((s) => s.name === q.server);
      if (state !== undefined && (state.status !== 'up' || !this.registry.hasCatalog(state.name)) && this.mayUse(principal, state, visible)) {
        return { ok: true, answer: { hits: [], note: emptyCatalogNote([state]), servers: [serverSummary(state, [])] } };
      }
      const held = quarantineNote(this.quarantined(principal, q.server));
      if (state !== undefined && held !== undefined) return { ok: true, answer: { hits: [], note: held, servers: [serverSummary(state, [])] } };
      return {
        ok: false,
        message: unknownServerMessage(
          this.servers(visible)
            .filter((s) => s.tools > 0)
            .map((s) => s.name),
        ),
      };
    }
    // Only the request's normalized words are kept, until this principal's next successful call.
    if (this.learning.enabled) this.learning.found(principal, learnedWords(queryTerms(q.query)));
    const found = await this.searcher.search(q.query, q.topK, q.server, visible);
    const writesNote = this.writesNote(q, principal, visible);
    // A score of 0 is a browse: the query had no word to search by. Anything above matched.
    if (found.some((h) => h.score > 0)) {
      return { ok: true, answer: { hits: found.map((h) => this.hit(h.tool, h.score, q.includeSchema)), ...writesNote } };
    }
    const servers = this.servers(visible);
    const inScope = q.server === undefined ? servers : servers.filter((s) => s.name === q.server);
    if (inScope.every((s) => s.tools === 0)) {
      const notConnected = states.filter((s) => s.status !== 'up' && (q.server === undefined || s.name === q.server));
      const held = quarantineNote(this.quarantined(principal, q.server));
      const note = held === undefined ? emptyCatalogNote(notConnected) : notConnected.length === 0 ? held : `${emptyCatalogNote(notConnected)}; ${held}`;
      return { ok: true, answer: { hits: [], note, servers: notConnected.map((s) => serverSummary(s, [])), ...writesNote } };
    }
    const closest = found.length > 0 ? found : await this.searcher.search('', q.topK, q.server, visible);
    return {
      ok: true,
      answer: {
        hits: closest.map((h) => this.hit(h.tool, h.score, q.includeSchema)),
        note: NO_MATCH_NOTE,
        servers: servers.filter((s) => s.tools > 0),
        ...writesNote,
      },
    };
  }

  /** Per server (all, or `server`), the tools `principal` may call that the trust pins hold back. */
  private quarantined(principal: Principal, server: string | undefined): { name: string; tools: number }[] {
    return this.backends
      .states()
      .filter((state) => server === undefined || state.name === server)
      .map((state) => ({
        name: state.name,
        tools: this.registry.toolsOf(state.name).filter((tool) => this.access.mayCallTool(principal, tool) && this.trust.quarantineReason(tool) !== undefined)
          .length,
      }))
      .filter((s) => s.tools > 0);
  }

  /**
   * With writes off, the tools that change things are not offered; when some of them would have
   * ranked among the hits (by the lexical ranking: the embeddings endpoint is not asked twice), the
   * answer says so, so a model asked to change something learns that it cannot here rather than
   * settling for a read tool.
   */
  private writesNote(q: FindToolQuery, principal: Principal, visible: (tool: CatalogTool) => boolean): { writes_note?: string } {
    if (this.gate.writesEnabled) return {};
    const heldBack = (tool: CatalogTool) => this.callable.heldBackByWritesOff(principal, tool);
    const ranked = this.searcher.lexicalSearch(q.query, q.topK, q.server, (tool) => visible(tool) || heldBack(tool));
    const matched = ranked.filter((h) => h.score > 0 && heldBack(h.tool)).length;
    return matched > 0 ? { writes_note: writesOffNote(matched) } : {};
  }

  /**
   * Whether `principal` may use a server: a tool of its last catalog is callable, or, with no
   * catalog yet, an access rule opens it.
   */
  private mayUse(principal: Principal, state: BackendState, visible: (tool: CatalogTool) => boolean): boolean {
    return this.registry.hasCatalog(state.name) ? this.registry.toolsOf(state.name).some(visible) : this.access.mayUseBackend(principal, state.name);
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

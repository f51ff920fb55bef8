import { Inject, Injectable } from '@nestjs/common';
import { BatchService } from '../batch/batch.service';
import { FindToolService } from '../discovery/find-tool.service';
import { WriteService } from '../batch/write.service';
import { isJsonObject, type JsonObject } from '../common/json-object';
import type { Principal } from '../common/principal';
import { PUBLISH_CONFIG, WRITES_CONFIG } from '../config/config.tokens';
import type { PublishConfig, WritesConfig } from '../config/config.types';
import { type DirectListing, DirectToolsService, type DirectRoute } from '../publish/direct-tools.service';
import { checkFindToolInput } from './domain/find-tool-input';
import type { RequestParams } from './domain/jsonrpc';
import { directConfirmHint, instructionsFor, resumeHint } from './domain/surface-text';
import { findToolResult, refusal, refusalResult } from './domain/tool-result';
import { findToolSpan, type NamedAttributes, TOOL_ERROR } from '../tracing/domain/spans';
import { TRACING, type Tracing } from '../tracing/tracing';
import { FIND_TOOL, INVOKE_READ_TOOL, INVOKE_READ_TOOL_BATCH, INVOKE_TOOL, INVOKE_TOOL_DEFINITION, PUBLISHED_TOOLS } from './published-tools';

export const SERVER_INFO = { name: 'centralmcp-router', version: '0.1.0' } as const;

/** A `tools/call` outcome: the tool's result as JSON text, or params the method cannot take. */
export type ToolCallOutcome = { ok: true; resultJson: string } | { ok: false; message: string };

/** What one caller is offered: the tools `tools/list` answers, and the server's instructions. */
export interface SurfaceListing {
  tools: readonly { name: string }[];
  instructions: string;
}

/**
 * What the router publishes, whatever the protocol era of the client: its tools, in one fixed
 * order (the meta-tools first, find_tool first among them, as a model should use them; spec
 * 2026-07-28 "Tools": deterministic order), its instructions, and the running of a published
 * tool. With `publish.mode` `meta` (the default) the surface is the same for every caller and
 * static for the life of the process. With `direct` or `both` it is per caller: the backend
 * tools the caller may call are published too (README "Tools published directly").
 */
@Injectable()
export class PublishedSurface {
  /** The meta-tools `meta` and `both` publish: `invoke_tool` only with `writes` on, so a router that cannot write never offers it. */
  private readonly metaTools: readonly { name: string }[];
  /** The only meta-tool `direct` always publishes: how a cut answer of a direct tool is resumed. */
  private readonly resumeTools: readonly { name: string }[];
  private readonly instructions: string;
  private readonly metaListing: SurfaceListing;
  /** Each kept direct listing's surface, gone with the listing. */
  private readonly surfaces = new WeakMap<DirectListing, SurfaceListing>();
  /** Each surface's tools as JSON text, serialized once per listing. */
  private readonly toolsJson = new WeakMap<SurfaceListing, string>();
  /** True when `tools/list` depends on the caller and on the catalog (`direct`, `both`). */
  readonly perCaller: boolean;

  constructor(
    private readonly batch: BatchService,
    private readonly finder: FindToolService,
    private readonly writer: WriteService,
    private readonly direct: DirectToolsService,
    @Inject(WRITES_CONFIG) private readonly writes: WritesConfig,
    @Inject(TRACING) private readonly tracing: Tracing,
    @Inject(PUBLISH_CONFIG) private readonly publish: PublishConfig,
  ) {
    this.metaTools = Object.freeze(writes.enabled ? [...PUBLISHED_TOOLS, INVOKE_TOOL_DEFINITION] : [...PUBLISHED_TOOLS]);
    this.resumeTools = Object.freeze(PUBLISHED_TOOLS.filter((t) => t.name === INVOKE_READ_TOOL));
    this.instructions = instructionsFor(publish.mode, writes.enabled);
    this.metaListing = Object.freeze({ tools: this.metaTools, instructions: this.instructions });
    this.perCaller = direct.enabled;
  }

  /**
   * The caller's tools and instructions. In `direct` mode the meta-tools are left out but
   * `invoke_read_tool`, unless the caller may call more tools than `publish.maxDirectTools`: then
   * all of them are published, since they are its way to the rest, which the instructions name.
   */
  listFor(principal: Principal): SurfaceListing {
    if (!this.perCaller) return this.metaListing;
    const listing = this.direct.listFor(principal);
    // The direct listing is kept per access identity until a change; so is the surface made of it.
    let surface = this.surfaces.get(listing);
    if (surface === undefined) {
      const meta = this.publish.mode === 'direct' && listing.beyond === 0 ? this.resumeTools : this.metaTools;
      surface = Object.freeze({ tools: [...meta, ...listing.tools], instructions: this.instructions + listing.instructions });
      this.surfaces.set(listing, surface);
    }
    return surface;
  }

  /**
   * The caller's tools as the JSON text of an array, serialized once per kept listing: with
   * hundreds of tools published, serializing them is most of a `tools/list`'s work.
   */
  toolsJsonFor(principal: Principal): string {
    const listing = this.listFor(principal);
    let json = this.toolsJson.get(listing);
    if (json === undefined) {
      json = JSON.stringify(listing.tools);
      this.toolsJson.set(listing, json);
    }
    return json;
  }

  /** Checks `tools/call` params the way the SDK's schema would, then runs the tool. */
  call(params: RequestParams, principal: Principal): Promise<ToolCallOutcome> {
    const { name } = params;
    const args = params.arguments ?? {};
    if (typeof name !== 'string') return Promise.resolve({ ok: false, message: 'Invalid params: `name` must be a string' });
    if (!isJsonObject(args)) return Promise.resolve({ ok: false, message: 'Invalid params: `arguments` must be an object' });
    return this.run(name, args, principal);
  }

  /**
   * The tool's whole result as JSON text. `isError` is true only when nothing was dispatched (a
   * refusal) or the single call failed; a dispatched batch is the tool working, whatever its
   * entries did (architecture §5). Not async: each tool's outcome is one `then` on its own promise
   * (on every tools/call, a promise and its turns less).
   */
  private run(name: string, args: JsonObject, principal: Principal): Promise<ToolCallOutcome> {
    switch (name) {
      case FIND_TOOL:
        return this.findTool(args, principal).then(resultOutcome);
      case INVOKE_READ_TOOL:
        return this.batch.read(args, principal).then((single) => resultOutcome(single.answer.status === 'ok' ? single.wire : this.toolError(single.wire)));
      case INVOKE_READ_TOOL_BATCH:
        if (!this.servesMeta(principal)) return Promise.resolve(resultOutcome(this.unknownTool()));
        return this.batch
          .readBatch(args, principal)
          .then((outcome) =>
            resultOutcome(outcome.kind === 'rejected' ? this.toolError(refusalResult(refusal(outcome.code, outcome.message))) : outcome.batch.wire),
          );
      case INVOKE_TOOL:
        if (!this.writes.enabled || !this.servesMeta(principal)) return Promise.resolve(resultOutcome(this.unknownTool()));
        return this.writer.write(args, principal).then((single) =>
          // A confirmation request is a question, not a failure (architecture §13).
          resultOutcome(single.answer.status === 'ok' || single.answer.status === 'confirmation_required' ? single.wire : this.toolError(single.wire)),
        );
      default: {
        const route = this.direct.route(name, principal);
        return route === undefined ? Promise.resolve(resultOutcome(this.unknownTool())) : this.runDirect(name, route, args, principal).then(resultOutcome);
      }
    }
  }

  private async findTool(args: JsonObject, principal: Principal): Promise<string> {
    if (!this.servesMeta(principal)) return this.unknownTool();
    const input = checkFindToolInput(args);
    if (!input.ok) return this.toolError(refusalResult(refusal('invalid_arguments', input.message)));
    const query = input.query;
    const outcome = await this.tracing.inSpan(
      () => findToolSpan(query.topK),
      async (span) => {
        const found = await this.finder.find(query, principal);
        span.setAttributes({ 'centralmcp.find_tool.hits': found.ok ? found.answer.hits.length : 0 } satisfies NamedAttributes);
        return found;
      },
    );
    return outcome.ok ? findToolResult(outcome.answer) : this.toolError(refusalResult(refusal('invalid_arguments', outcome.message)));
  }

  /**
   * A tool published directly, through the same seam as invoke_read_tool or invoke_tool. A read's
   * cut answer says how to resume it; a write takes its confirmation token in its own argument.
   */
  private async runDirect(name: string, route: DirectRoute, args: JsonObject, principal: Principal): Promise<string> {
    const { tool } = route;
    if (route.kind === 'read') {
      return (await this.batch.read({ name: tool.name, server: tool.backend, arguments: args }, principal, resumeHint(tool.name, tool.backend))).wire;
    }
    const field = route.confirmField;
    if (field === undefined) return (await this.writer.write({ name: tool.name, server: tool.backend, arguments: args }, principal)).wire;
    const { [field]: confirm, ...rest } = args;
    const call = { name: tool.name, server: tool.backend, arguments: rest, ...(confirm === undefined ? {} : { confirm }) };
    return (await this.writer.write(call, principal, directConfirmHint(name, field))).wire;
  }

  /** Whether the caller is offered the meta-tools beside `invoke_read_tool` (see {@link listFor}). */
  private servesMeta(principal: Principal): boolean {
    return this.publish.mode !== 'direct' || this.direct.listFor(principal).beyond > 0;
  }

  /** As the SDK's own server does: a tool error the client shows to the model (architecture §1). */
  private unknownTool(): string {
    const message = this.perCaller
      ? 'No tool of this name is published to you; tools/list lists those that are'
      : `This router publishes ${this.metaTools.map((t) => t.name).join(', ')} only`;
    return this.toolError(refusalResult(refusal('unknown_tool', message)));
  }

  /** A result with `isError: true`: the request's span says so (`error.type` `tool_error`, MCP semantic conventions). */
  private toolError(resultJson: string): string {
    if (this.tracing.enabled) this.tracing.current().fail(TOOL_ERROR);
    return resultJson;
  }
}

function resultOutcome(resultJson: string): ToolCallOutcome {
  return { ok: true, resultJson };
}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { AccessService } from '../access/access.service';
import type { Principal } from '../common/principal';
import { ConfigService } from '../config/config.service';
import { PUBLISH_CONFIG, WRITES_CONFIG } from '../config/config.tokens';
import type { PublishConfig, WritesConfig } from '../config/config.types';
import { GateService } from '../gate/gate.service';
import { RegistryService } from '../registry/registry.service';
import type { CatalogTool } from '../registry/registry.types';
import { TrustService } from '../trust/trust.service';
import { beyondLimitInstructions, confirmField, directDefinition, splitAtLimit, type DirectCandidate, type DirectToolDefinition } from './domain/direct-tools';
import { publishedName } from './domain/published-name';

/** What one caller's `tools/list` carries of the backend tools, and the sentence its instructions gain. */
export interface DirectListing {
  tools: DirectToolDefinition[];
  /** How many tools the caller may call past `maxDirectTools`. */
  beyond: number;
  /** Empty unless `beyond` > 0: the tools past the limit, for the server's instructions. */
  instructions: string;
}

/** A published name mapped back to its tool, and the seam that serves it. */
export type DirectRoute = { kind: 'read'; tool: CatalogTool } | { kind: 'write'; tool: CatalogTool; confirmField: string | undefined };

/**
 * Backend tools published as tools of their own (`publish.mode` `direct` or `both`): per caller,
 * every tool it may call through the read path, and with `writes` on every tool it may write,
 * each under its `<backend>__<tool>` name. Access, trust and the gate decide here exactly as they
 * do in `find_tool` and on the seam, so a caller's list shows what its calls will reach; the call
 * itself still takes the whole seam. Names are kept in an index that follows the catalog.
 *
 * A caller's list depends on the caller only through its access rule, so it is computed once per
 * access identity (`AccessService.identityOf`) and kept until the catalog, a reloaded config
 * (access rules, read-only policy, writes) or a quarantine verdict changes: a `tools/list` then
 * walks the catalog once per rule, not once per request.
 */
@Injectable()
export class DirectToolsService {
  private readonly logger = new Logger(DirectToolsService.name);
  /** Published name → the tool it names. */
  private readonly byName = new Map<string, { backend: string; tool: string }>();
  /** Backend → its published names, to replace them with its catalog. */
  private readonly namesOf = new Map<string, string[]>();
  private readonly listeners: (() => void)[] = [];
  /** Access identity → its listing, until the next change of what listings are made of. */
  private readonly lists = new Map<string, DirectListing>();
  readonly enabled: boolean;

  constructor(
    private readonly registry: RegistryService,
    private readonly access: AccessService,
    private readonly gate: GateService,
    private readonly trust: TrustService,
    @Inject(PUBLISH_CONFIG) private readonly publish: PublishConfig,
    @Inject(WRITES_CONFIG) private readonly writes: WritesConfig,
    configs: ConfigService,
  ) {
    this.enabled = publish.mode !== 'meta';
    if (!this.enabled) return;
    for (const backend of registry.backends()) this.index(backend, registry.toolsOf(backend));
    registry.onCatalogReplaced((backend, tools) => {
      this.index(backend, tools);
      this.invalidate();
    });
    configs.onReload(() => this.invalidate());
    trust.onVerdictsChanged(() => this.invalidate());
  }

  /**
   * The caller's tools in published-name order, at most `maxDirectTools` of them. The same object
   * for every caller of one access identity until the next change: callers must not modify it.
   */
  listFor(principal: Principal): DirectListing {
    if (!this.enabled) return { tools: [], beyond: 0, instructions: '' };
    const identity = this.access.identityOf(principal);
    let listing = this.lists.get(identity);
    if (listing === undefined) {
      listing = this.compute(principal);
      this.lists.set(identity, listing);
    }
    return listing;
  }

  /**
   * Drops every kept listing and tells the listeners that lists may have changed: after a catalog
   * change, a reload, or a quarantine verdict. Public so a change this service does not hear of
   * can be applied.
   */
  invalidate(): void {
    this.lists.clear();
    for (const listener of this.listeners) listener();
  }

  private compute(principal: Principal): DirectListing {
    const candidates: DirectCandidate[] = [];
    for (const tool of this.registry.allTools()) {
      const kind = this.kindFor(principal, tool);
      const name = kind === undefined ? undefined : this.nameOf(tool);
      if (kind !== undefined && name !== undefined) candidates.push({ tool, kind, name });
    }
    const { published, beyond } = splitAtLimit(candidates, this.publish.maxDirectTools);
    return {
      tools: published.map(directDefinition),
      beyond: beyond.length,
      instructions: beyondLimitInstructions(
        beyond.map((c) => c.tool),
        this.publish.maxDirectTools,
      ),
    };
  }

  /**
   * The tool a published name stands for and the seam it takes: the read seam for a tool the gate
   * finds read-only and the caller may call, the write seam for any other the caller may write
   * while writes are on; undefined otherwise, so a tool the caller may not call answers exactly
   * like one that does not exist, a shortened name included. Trust and the gate's finer reasons
   * are the seam's to decide, as for invoke_read_tool.
   */
  route(name: string, principal: Principal): DirectRoute | undefined {
    const entry = this.enabled ? this.byName.get(name) : undefined;
    if (entry === undefined) return undefined;
    const found = this.registry.resolve(entry.tool, entry.backend);
    if (found.kind !== 'found') return undefined;
    const { tool } = found;
    if (this.gate.decide(tool).readOnly) return this.access.mayCallTool(principal, tool) ? { kind: 'read', tool } : undefined;
    if (!this.writes.enabled || !this.access.mayWriteTool(principal, tool)) return undefined;
    return { kind: 'write', tool, confirmField: confirmField(tool) };
  }

  /** Called after every change of the catalog, the config or a quarantine verdict, when a published list may have changed. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Which seam would serve this caller's call of `tool`, if any: the same checks as `find_tool` and the seam. */
  private kindFor(principal: Principal, tool: CatalogTool): 'read' | 'write' | undefined {
    if (this.trust.quarantineReason(tool) !== undefined) return undefined;
    if (this.gate.decide(tool).readOnly) return this.access.mayCallTool(principal, tool) ? 'read' : undefined;
    if (!this.writes.enabled || !this.access.mayWriteTool(principal, tool)) return undefined;
    return this.gate.decideWrite(tool).writable ? 'write' : undefined;
  }

  private nameOf(tool: CatalogTool): string | undefined {
    const name = publishedName(tool.backend, tool.name);
    const entry = this.byName.get(name);
    return entry?.backend === tool.backend && entry.tool === tool.name ? name : undefined;
  }

  /** Replaces a backend's names. A name another tool already holds stays that tool's (logged): names never move. */
  private index(backend: string, tools: readonly CatalogTool[]): void {
    for (const name of this.namesOf.get(backend) ?? []) this.byName.delete(name);
    const names: string[] = [];
    for (const tool of tools) {
      const name = publishedName(backend, tool.name);
      const holder = this.byName.get(name);
      if (holder !== undefined) {
        this.logger.warn({ msg: 'tool not published directly: its published name is taken', backend, tool: tool.name, name, heldBy: holder });
        continue;
      }
      this.byName.set(name, { backend, tool: tool.name });
      names.push(name);
    }
    this.namesOf.set(backend, names);
  }
}

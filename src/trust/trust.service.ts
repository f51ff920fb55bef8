import { Inject, Injectable, Logger, Optional, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { unwatchFile, watchFile } from 'node:fs';
import { AuditService } from '../audit/audit.service';
import { BackendsService } from '../backends/backends.service';
import { CLOCK, systemClock, type Clock } from '../common/clock';
import { messageOf } from '../common/thrown';
import { ConfigService } from '../config/config.service';
import { TRUST_CONFIG } from '../config/config.tokens';
import type { TrustConfig } from '../config/config.types';
import { MetricsService } from '../metrics/metrics.service';
import { RegistryService } from '../registry/registry.service';
import type { CatalogTool } from '../registry/registry.types';
import { definitionOf, pinOf } from './domain/pin';
import { newPins } from './domain/approval';
import { EMPTY_PINS, type PinsDocument } from './domain/pins-file';
import { readPinsFile, updatePinsFile, type ReadPins } from './pins-file.store';
import type { LockOptions } from './pins-lock';
import { reviewCatalog, type Review, type SeenTool, type TrustEvent, type Verdict } from './domain/review';

/** What the model is told about a tool that failed its pin, by verdict. */
const QUARANTINE_REASONS: Record<Exclude<Verdict, 'pinned'>, string> = {
  unpinned: 'quarantined: this tool has no approved pin (trust pins); an operator must approve its definition before it can be called',
  changed:
    "quarantined: this tool's definition changed since it was approved (trust pins); an operator must approve the new definition before it can be called",
};
/** How often the pins file is checked for changes made outside the router (the CLI, a person). */
const WATCH_INTERVAL_MS = 1000;
/**
 * The router waits at most this long for the pins lock (the event loop waits with it: a review is
 * synchronous); the CLI holds it for milliseconds. A lock older than `staleMs` was left by a
 * process that died on another host (one of this host is seen dead at once).
 */
const ROUTER_LOCK: LockOptions = { waitMs: 2_000, staleMs: 10_000 };

/** The mark `find_tool` shows in `warn` mode. */
const WARNINGS: Record<Exclude<Verdict, 'pinned'>, string> = {
  unpinned: 'not approved: this tool has no approved pin',
  changed: "changed since approval: this tool's definition differs from its approved pin",
};

/**
 * Pinned tool definitions (architecture §11.1). Every catalog a backend delivers is judged against
 * the pins file in the same turn (RegistryService calls back before any reader runs); a tool that
 * has no approved pin or whose definition changed is quarantined in `enforce` mode (hidden from
 * `find_tool`, its calls `blocked`) and only marked in `warn` mode. Every backend is also listed
 * again every `relistSeconds`, since a backend may change a tool without `list_changed`.
 */
@Injectable()
export class TrustService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(TrustService.name);
  private doc: PinsDocument = EMPTY_PINS;
  /** The file's text as last read or written: a different text on disk is a change made outside. */
  private lastText = '';
  private watching = false;
  /**
   * Backends the router has held a pin or a pending definition of since it started.
   * `approveNewBackends` approves only a backend it has never pinned: one whose entries went
   * missing from the file (deleted, emptied, edited away) is judged as any known backend is.
   */
  private readonly knownBackends = new Set<string>();
  private readonly verdicts = new Map<string, Map<string, Verdict>>();
  private relistTimer: NodeJS.Timeout | undefined;
  private readonly verdictListeners: (() => void)[] = [];

  constructor(
    @Inject(TRUST_CONFIG) private config: TrustConfig,
    private readonly registry: RegistryService,
    private readonly backends: BackendsService,
    private readonly metrics: MetricsService,
    private readonly audit: AuditService,
    configs: ConfigService,
    @Optional() @Inject(CLOCK) private readonly clock: Clock = systemClock,
  ) {
    if (config.mode === 'off' || config.pinsFile === undefined) return;
    // A reload keeps the pins file and pins on (else it takes a restart): the mode and the re-list
    // period apply to the next call and review.
    configs.onReload((next) => {
      const trust = next.trust;
      if (trust === undefined || trust === this.config) return;
      const relist = trust.relistSeconds !== this.config.relistSeconds;
      const modeChanged = trust.mode !== this.config.mode;
      this.config = trust;
      if (modeChanged) this.verdictsChanged();
      // Reloads come after the boot (SIGHUP and the watch start with the app), so the timer runs already.
      if (relist) this.startRelist();
    });
    // A pins file that cannot be read or parsed stops the boot: enforcing nothing would be silent.
    const read = readPinsFile(config.pinsFile);
    this.doc = read.doc;
    this.lastText = read.text;
    this.remember(read.doc);
    registry.onCatalogReplaced((backend, tools) => this.review(backend, tools));
  }

  onApplicationBootstrap(): void {
    const file = this.config.pinsFile;
    if (this.config.mode !== 'off' && file !== undefined) {
      // Approvals (the CLI, an edit) apply without a restart. Polling, not fs.watch: the file is
      // replaced by rename, and polling sees that the same way on every platform and volume.
      watchFile(file, { interval: WATCH_INTERVAL_MS, persistent: false }, () => this.syncFromDisk());
      this.watching = true;
    }
    this.startRelist();
  }

  /** Started at boot (and again at a reload), outside any request, so re-lists never run in a caller's context. */
  private startRelist(): void {
    if (this.relistTimer) clearInterval(this.relistTimer);
    this.relistTimer = undefined;
    if (this.config.relistSeconds <= 0) return;
    this.relistTimer = setInterval(() => this.backends.relistAll(), this.config.relistSeconds * 1000);
    this.relistTimer.unref();
  }

  onApplicationShutdown(): void {
    if (this.relistTimer) clearInterval(this.relistTimer);
    if (this.watching && this.config.pinsFile !== undefined) unwatchFile(this.config.pinsFile);
  }

  /**
   * Calls `listener` each time what `quarantineReason` answers may have changed: a catalog judged
   * (its own or again after the pins changed), or the mode reloaded.
   */
  onVerdictsChanged(listener: () => void): void {
    this.verdictListeners.push(listener);
  }

  /** In `enforce` mode, why a call to `tool` is refused; undefined when it may go on. */
  quarantineReason(tool: CatalogTool): string | undefined {
    if (this.config.mode !== 'enforce') return undefined;
    const verdict = this.verdictOf(tool);
    return verdict === 'pinned' ? undefined : QUARANTINE_REASONS[verdict];
  }

  /** In `warn` mode, the mark `find_tool` puts on a tool that failed its pin. */
  warningFor(tool: CatalogTool): string | undefined {
    if (this.config.mode !== 'warn') return undefined;
    const verdict = this.verdictOf(tool);
    return verdict === 'pinned' ? undefined : WARNINGS[verdict];
  }

  private verdictOf(tool: CatalogTool): Verdict {
    // A tool not reviewed yet cannot be vouched for; with trust on, every catalog is reviewed
    // before it is readable, so this is a safety net only.
    return this.verdicts.get(tool.backend)?.get(tool.name) ?? 'unpinned';
  }

  /**
   * Takes up the file's content when it changed since the router last read or wrote it (approvals
   * made outside are audited by whoever they name) and judges every catalog again. A file that
   * does not parse is logged and left aside (the pins in force stay); one that went missing or
   * empty is written back from memory.
   */
  private syncFromDisk(): void {
    let read;
    try {
      read = readPinsFile(this.config.pinsFile!);
    } catch (err) {
      this.logger.error({ msg: 'pins file not applied', error: messageOf(err) });
      return;
    }
    if (this.isLost(read)) this.writeBack();
    else if (this.takeUp(read)) this.reviewAll();
  }

  /**
   * The file is missing or empty while the router holds pins or pending definitions. Never read as
   * "nothing is approved": with `approveNewBackends` every backend would look new and whatever it
   * serves at that moment would be approved. The pins in memory stand and are written back.
   */
  private isLost(read: ReadPins): boolean {
    return read.text.trim() === '' && (this.doc.pins.length > 0 || this.doc.pending.length > 0);
  }

  /** Writes the pins in memory back over a missing or empty file, under the pins lock. */
  private writeBack(): void {
    let changedOutside = false;
    try {
      const { text } = updatePinsFile(this.config.pinsFile!, ROUTER_LOCK, (current) => {
        // Someone wrote the file meanwhile: that content is taken up instead.
        if (!this.isLost(current)) return { value: (changedOutside = this.takeUp(current)) };
        this.warnLost();
        return { doc: this.doc, value: false };
      });
      if (text !== undefined) this.lastText = text;
    } catch (err) {
      this.logger.error({ msg: 'pins file not written', file: this.config.pinsFile, error: messageOf(err) });
    }
    if (changedOutside) this.reviewAll();
  }

  private warnLost(): void {
    this.logger.warn({
      msg: 'pins file missing or empty: the pins held in memory are written back',
      file: this.config.pinsFile,
      pins: this.doc.pins.length,
      pending: this.doc.pending.length,
    });
  }

  private remember(doc: PinsDocument): void {
    for (const entry of [...doc.pins, ...doc.pending]) this.knownBackends.add(entry.backend);
  }

  private takeUp(read: ReadPins): boolean {
    if (read.text === this.lastText) return false;
    this.lastText = read.text;
    this.remember(read.doc);
    for (const pin of newPins(this.doc, read.doc)) {
      this.logger.log({ msg: 'tool approved', backend: pin.backend, tool: pin.tool, by: pin.approvedBy });
      this.audit.recordTrust({ action: 'approve', backend: pin.backend, tool: pin.tool, sha256: pin.sha256, reason: pin.approvedBy, mode: this.config.mode });
    }
    this.doc = read.doc;
    return true;
  }

  /** Judges every backend's current catalog again (after the pins changed). */
  private reviewAll(): void {
    for (const backend of [...this.verdicts.keys()]) this.review(backend, this.registry.toolsOf(backend));
  }

  /**
   * Judges a backend's catalog against the pins file as it is now, and records what is new in it,
   * under the pins lock: the file is read, judged against and written in one step, so a CLI
   * approval made meanwhile is neither missed nor overwritten. Without the lock (held too long) or
   * a readable file, the catalog is judged against the pins in memory and the file is left alone;
   * the next review writes what is new.
   */
  private review(backend: string, tools: readonly CatalogTool[]): void {
    const seen: SeenTool[] = tools.map((tool) => {
      const definition = definitionOf(tool);
      return { tool: tool.name, sha256: pinOf(definition), definition };
    });
    let judged: Review | undefined;
    let changedOutside = false;
    try {
      const { text } = updatePinsFile(this.config.pinsFile!, ROUTER_LOCK, (current) => {
        const lost = this.isLost(current);
        if (lost) this.warnLost();
        else changedOutside = this.takeUp(current);
        judged = this.judge(backend, seen);
        return { doc: judged.doc !== this.doc || lost ? judged.doc : undefined, value: undefined };
      });
      if (text !== undefined) this.lastText = text;
    } catch (err) {
      // The verdicts stand either way (they are in memory); only the record for review waits.
      this.logger.error({ msg: 'pins file not written', file: this.config.pinsFile, error: messageOf(err) });
    }
    judged ??= this.judge(backend, seen);
    this.doc = judged.doc;
    // Approvals made outside since the last read concern other backends too; the file watch will
    // not report them again (the router has now read that text).
    if (changedOutside) for (const other of [...this.verdicts.keys()]) if (other !== backend) this.review(other, this.registry.toolsOf(other));
  }

  /** Verdicts, metrics and events of one catalog against `this.doc`; the document to keep is returned. */
  private judge(backend: string, seen: readonly SeenTool[]): Review {
    const result = reviewCatalog(this.doc, backend, seen, {
      approveNewBackend: this.config.approveNewBackends && !this.knownBackends.has(backend),
      nowIso: new Date(this.clock.now()).toISOString(),
      previous: this.verdicts.get(backend),
    });
    this.verdicts.set(backend, result.verdicts);
    this.verdictsChanged();
    this.remember(result.doc);
    this.metrics.setQuarantinedTools(backend, [...result.verdicts.values()].filter((v) => v !== 'pinned').length);
    for (const event of result.events) this.report(backend, event);
    return result;
  }

  private verdictsChanged(): void {
    for (const listener of this.verdictListeners) listener();
  }

  private report(backend: string, event: TrustEvent): void {
    const mode = this.config.mode;
    switch (event.kind) {
      case 'approved':
        this.audit.recordTrust({ action: 'approve', backend, tool: event.tool, sha256: event.sha256, reason: event.by, mode });
        return;
      case 'released':
        this.logger.log({ msg: 'tool matches its pin again', backend, tool: event.tool });
        this.audit.recordTrust({ action: 'release', backend, tool: event.tool, sha256: event.sha256, reason: 'pinned', mode });
        return;
      case 'quarantined':
        if (event.reason === 'changed') this.metrics.recordDrift(backend);
        this.logger.warn({
          msg: mode === 'enforce' ? 'tool quarantined' : 'tool fails its pin',
          backend,
          tool: event.tool,
          reason: event.reason,
          sha256: event.sha256,
        });
        this.audit.recordTrust({ action: 'quarantine', backend, tool: event.tool, sha256: event.sha256, reason: event.reason, mode });
        return;
    }
  }
}

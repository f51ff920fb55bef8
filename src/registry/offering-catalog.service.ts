import { Injectable, Logger } from '@nestjs/common';
import { capabilityOf, NO_OFFERINGS, type OfferingCapabilities, type OfferingKind, type PublishedOffering, publishOfferings } from './domain/offerings';

/** Called when what one kind of offering lists may have changed (see {@link OfferingCatalog.onChanged}). */
export type OfferingListener = (kind: OfferingKind) => void;

interface BackendOfferings {
  capabilities: OfferingCapabilities;
  resources: readonly PublishedOffering['resources'][];
  templates: readonly PublishedOffering['templates'][];
  prompts: readonly PublishedOffering['prompts'][];
}

/**
 * Every backend's resources, resource templates and prompts, published under names and URIs that
 * carry the backend (architecture §16). Backends push what they list, as they push tools into the
 * registry; the MCP edge reads it and subscribes to its changes to tell clients. A backend that
 * goes down keeps its last listings and capabilities, as it keeps its tools.
 */
@Injectable()
export class OfferingCatalog {
  private readonly logger = new Logger(OfferingCatalog.name);
  private readonly byBackend = new Map<string, BackendOfferings>();
  private readonly listeners: OfferingListener[] = [];

  /** What the backend declared at its last handshake; a kind it no longer declares is emptied. */
  setCapabilities(backend: string, capabilities: OfferingCapabilities): void {
    const before = this.entry(backend);
    const after: BackendOfferings = {
      capabilities,
      resources: capabilities.resources ? before.resources : [],
      templates: capabilities.resources ? before.templates : [],
      prompts: capabilities.prompts ? before.prompts : [],
    };
    this.byBackend.set(backend, after);
    if (before.capabilities.resources !== capabilities.resources) this.changed('resources');
    if (before.capabilities.prompts !== capabilities.prompts) this.changed('prompts');
  }

  /** Replaces one backend's listing of one kind with what it listed (raw entries, published here). */
  replace(backend: string, kind: OfferingKind, listed: readonly unknown[]): void {
    const entry = this.entry(backend);
    const published = publishOfferings(kind, backend, listed, (reason) => this.logger.warn({ msg: 'entry left out of the listing', backend, kind, reason }));
    this.byBackend.set(backend, { ...entry, [kind]: published });
    this.logger.log({ msg: 'offerings updated', backend, kind, entries: published.length });
    this.changed(kind);
  }

  /** A backend taken out of the config by a reload: its resources and prompts leave with it. */
  removeBackend(backend: string): void {
    const before = this.byBackend.get(backend);
    if (before === undefined) return;
    this.byBackend.delete(backend);
    if (before.capabilities.resources) this.changed('resources');
    if (before.capabilities.prompts) this.changed('prompts');
  }

  /** Whether the backend declared the capability a kind belongs to (kept while it is down). */
  declares(backend: string, kind: OfferingKind): boolean {
    return this.byBackend.get(backend)?.capabilities[capabilityOf(kind)] ?? false;
  }

  /** The backends that declared the capability of `kind`, in the order they first connected. */
  backendsDeclaring(kind: OfferingKind): string[] {
    return [...this.byBackend].filter(([, o]) => o.capabilities[capabilityOf(kind)]).map(([b]) => b);
  }

  /** One backend's published entries of one kind. */
  listOf<K extends OfferingKind>(backend: string, kind: K): readonly PublishedOffering[K][] {
    return (this.byBackend.get(backend)?.[kind] ?? []) as readonly PublishedOffering[K][];
  }

  /** Calls `listener` each time a kind's listing or a backend's declaration of it changes. */
  onChanged(listener: OfferingListener): void {
    this.listeners.push(listener);
  }

  private entry(backend: string): BackendOfferings {
    return this.byBackend.get(backend) ?? { capabilities: NO_OFFERINGS, resources: [], templates: [], prompts: [] };
  }

  private changed(kind: OfferingKind): void {
    for (const listener of this.listeners) listener(kind);
  }
}

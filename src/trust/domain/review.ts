import type { PendingEntry, PinEntry, PinsDocument } from './pins-file';
import type { ToolDefinition } from './pin';

/** A tool's standing against its pin: approved as it is, never approved, or changed since approval. */
export type Verdict = 'pinned' | 'unpinned' | 'changed';

/** One tool of a fresh catalog, with its definition and pin. */
export interface SeenTool {
  tool: string;
  sha256: string;
  definition: ToolDefinition;
}

/** Something the operator must hear about (a log line, an audit line, a metric). */
export type TrustEvent =
  | { kind: 'approved'; tool: string; sha256: string; by: string }
  | { kind: 'quarantined'; tool: string; sha256: string; reason: 'unpinned' | 'changed' }
  | { kind: 'released'; tool: string; sha256: string };

export interface Review {
  /** The document to keep (the same object when nothing changed). */
  doc: PinsDocument;
  verdicts: Map<string, Verdict>;
  events: TrustEvent[];
}

export interface ReviewOptions {
  /** Approve the whole catalog when the document knows nothing of this backend yet. */
  approveNewBackend: boolean;
  nowIso: string;
  /** The verdicts of this backend's previous catalog: events are raised on a change only. */
  previous: ReadonlyMap<string, Verdict> | undefined;
}

/** The approval name written for a backend approved wholesale on its first connection. */
export const APPROVED_AS_NEW_BACKEND = 'approveNewBackends';

/**
 * Judges one backend's fresh catalog against the pins. A tool whose definition hashes to its
 * approved pin is `pinned`; any other is recorded as pending (with its definition, for review) and
 * judged `unpinned` or `changed`. A tool that went back to its approved definition drops its
 * pending entry. Events are raised only when a tool's verdict or pending definition changes, so a
 * periodic re-list of an unchanged catalog is silent.
 */
export function reviewCatalog(doc: PinsDocument, backend: string, seen: readonly SeenTool[], o: ReviewOptions): Review {
  const isNew = !doc.pins.some((p) => p.backend === backend) && !doc.pending.some((p) => p.backend === backend);
  const pins = new Map(doc.pins.filter((p) => p.backend === backend).map((p) => [p.tool, p]));
  const pendingOf = new Map(doc.pending.filter((p) => p.backend === backend).map((p) => [p.tool, p]));
  const addedPins: PinEntry[] = [];
  const pending = new Map(pendingOf);
  const verdicts = new Map<string, Verdict>();
  const events: TrustEvent[] = [];
  let changed = false;
  for (const { tool, sha256, definition } of seen) {
    const pin = pins.get(tool);
    if (pin === undefined && isNew && o.approveNewBackend) {
      addedPins.push({ backend, tool, sha256, firstSeen: o.nowIso, approvedBy: APPROVED_AS_NEW_BACKEND, approvedAt: o.nowIso, definition });
      verdicts.set(tool, 'pinned');
      events.push({ kind: 'approved', tool, sha256, by: APPROVED_AS_NEW_BACKEND });
      changed = true;
      continue;
    }
    if (pin !== undefined && pin.sha256 === sha256) {
      verdicts.set(tool, 'pinned');
      if (pending.delete(tool)) changed = true;
      if (o.previous !== undefined && o.previous.get(tool) !== undefined && o.previous.get(tool) !== 'pinned') events.push({ kind: 'released', tool, sha256 });
      continue;
    }
    const reason = pin === undefined ? 'unpinned' : 'changed';
    verdicts.set(tool, reason);
    const known = pending.get(tool);
    if (known?.sha256 !== sha256) {
      const entry: PendingEntry = { backend, tool, sha256, reason: pin === undefined ? 'new' : 'changed', seenAt: o.nowIso, definition };
      pending.set(tool, entry);
      changed = true;
    }
    if (known?.sha256 !== sha256 || o.previous?.get(tool) !== reason) events.push({ kind: 'quarantined', tool, sha256, reason });
  }
  if (!changed) return { doc, verdicts, events };
  return {
    doc: {
      version: 1,
      pins: [...doc.pins, ...addedPins],
      pending: [...doc.pending.filter((p) => p.backend !== backend), ...pending.values()],
    },
    verdicts,
    events,
  };
}

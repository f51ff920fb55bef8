import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

/** One row of a profile summary. */
export interface CostRow {
  where: string;
  ms: number;
  share: number;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Busy time: every sample but idle. */
  totalMs: number;
  /** Self time booked to the nearest caller of ours or of a package (see `areaOf`). */
  byArea: CostRow[];
  /** Self time per function. */
  selfByFunction: CostRow[];
  /** Time a function was on the stack (each sample counted once per function). */
  inclusiveByFunction: CostRow[];
}

/** A script URL, shortened: `node_modules/<pkg>/…`, `src/…`, or the node internal module. */
function place(url: string, root: string): string {
  if (url === '') return '(native)';
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('node_modules/');
  if (nm !== -1) return path.slice(nm);
  if (path.startsWith(root)) return relative(root, path).replace(/^dist\//, '');
  return path;
}

/** The package or area a frame belongs to, or undefined for node internals and natives. */
function ownerOf(where: string): string | undefined {
  const pkg = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(where)?.[1];
  if (pkg) return pkg;
  if (where.startsWith('src/')) return `router ${where.split('/').slice(0, 2).join('/')}/`;
  return undefined;
}

/** Node's own work, grouped, for samples with no frame of ours or of a package on the stack. */
function internalArea(where: string, functionName: string): string {
  if (where === '(native)') return functionName === '(garbage collector)' ? 'GC' : `native ${functionName}`;
  if (where.includes('undici')) return 'node: undici (fetch)';
  if (/streams?/.test(where)) return 'node: streams';
  if (/_http|http|net|tls|dns/.test(where)) return 'node: http/net';
  if (where.includes('async_hooks') || where.includes('promise')) return 'node: promises/async_hooks';
  if (where.includes('timers')) return 'node: timers';
  return 'node: other';
}

/**
 * Summarizes a V8 `.cpuprofile` (what `node --cpu-prof` and the inspector's Profiler write). Each
 * sample's time is booked to its leaf frame (self time), to every function on its stack
 * (inclusive time), and to an area: the nearest frame up the stack that is the router's or a
 * package's, else a group of node internals. Booking by nearest caller puts, say, the undici work
 * started by the SDK's `fetch` on the SDK, which is who decided to spend it.
 */
export function summarizeProfile(file: string, root: string, top = 20): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n: ProfileNode) => `${place(n.callFrame.url, root)}:${n.callFrame.lineNumber + 1} ${n.callFrame.functionName || '(anonymous)'}`;

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const area = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((leafId, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const leaf = byId.get(leafId)!;
    if (leaf.callFrame.functionName === '(idle)' || leaf.callFrame.functionName === '(program)') return;
    total += us;
    self.set(label(leaf), (self.get(label(leaf)) ?? 0) + us);
    const seen = new Set<string>();
    let owner: string | undefined;
    for (let id: number | undefined = leafId; id !== undefined; id = parent.get(id)) {
      const node = byId.get(id)!;
      const l = label(node);
      if (!seen.has(l)) {
        seen.add(l);
        inclusive.set(l, (inclusive.get(l) ?? 0) + us);
      }
      owner ??= ownerOf(place(node.callFrame.url, root));
    }
    const a = owner ?? internalArea(place(leaf.callFrame.url, root), leaf.callFrame.functionName);
    area.set(a, (area.get(a) ?? 0) + us);
  });
  const rows = (m: Map<string, number>, n = top) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([where, us]) => ({ where, ms: us / 1000, share: us / total }));
  const ours = new Map([...inclusive].filter(([k]) => !k.startsWith('node:') && !k.startsWith('(native)') && !k.includes(' (anonymous)')));
  return { totalMs: total / 1000, byArea: rows(area, 16), selfByFunction: rows(self), inclusiveByFunction: rows(ours, 30) };
}

import { readdirSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';

/**
 * Nothing a test started outlives it. A test that fails half-way, or a test file that the runner
 * stops at its timeout (SIGTERM, so no `after` hook runs), would otherwise leave its fixture
 * servers, routers and their backends running. The processes are found by walking /proc from
 * this process down, so whatever started them (a helper, the in-process router, a spawned router,
 * a fixture) they are all found, grandchildren included.
 */

/** Parent pid of each living (non-zombie) process, read from /proc/<pid>/stat. */
function parents(): Map<number, number> {
  const ppidOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const raw = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the parenthesised command: state ppid ...
      const [state, ppid] = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z') ppidOf.set(Number(entry), Number(ppid));
    } catch {
      // gone meanwhile
    }
  }
  return ppidOf;
}

/** Every living descendant of `root` (children, their children, …), parents before children. */
export function descendantsOf(root: number): number[] {
  const childrenOf = new Map<number, number[]>();
  for (const [pid, ppid] of parents()) childrenOf.set(ppid, [...(childrenOf.get(ppid) ?? []), pid]);
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const child of childrenOf.get(queue.shift()!) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/**
 * Sends `signal` to `pid` and every descendant of it. The tree is read before any signal, so the
 * grandchildren of a process killed first (re-parented away from it) are reached too.
 */
export function killTree(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const target of [pid, ...descendantsOf(pid)]) {
    try {
      process.kill(target, signal);
    } catch {
      // already gone
    }
  }
}

let installed = false;

/**
 * Kills every descendant of this process when it exits, however it exits: normally, by an
 * uncaught error, or by SIGTERM/SIGINT/SIGHUP (then it exits with 128 + the signal's number, as
 * the signal would have).
 */
export function stopDescendantsOnExit(): void {
  if (installed) return;
  installed = true;
  const reap = () => {
    for (const pid of descendantsOf(process.pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };
  process.on('exit', reap);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.once(signal, () => {
      reap();
      process.exit(128 + constants.signals[signal]);
    });
  }
}

import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Process checks for tests that assert nothing of ours survives. A killed process whose parent
 * died stays a zombie until init reaps it (seconds, in some containers), and `kill(pid, 0)`
 * still succeeds on a zombie, so these read /proc (Linux) and count zombies as dead.
 */

interface ProcStat {
  state: string;
  pgid: number;
}

function statOf(pid: number): ProcStat | undefined {
  try {
    const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command: state ppid pgrp ...
    const fields = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], pgid: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

/** True while the process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  const stat = statOf(pid);
  return stat !== undefined && stat.state !== 'Z';
}

/** Pids of the living (non-zombie) members of a process group. */
export function livingInGroup(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      const stat = statOf(pid);
      return stat !== undefined && stat.pgid === pgid && stat.state !== 'Z';
    });
}

/**
 * Waits stand for events (a log line, a metric, a readiness change, a backend's record of a call)
 * and return as soon as they happen; a ceiling only bounds how long a broken test hangs. The tests
 * give a minute: beside two CPU-bound processes on two cores, what takes a second on an idle
 * machine can take ten.
 */

/** Polls `check` every 20 ms until it holds; throws after `ms`. */
export async function waitFor(check: () => boolean, ms = 60_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what} not met within ${ms} ms`);
    await sleep(20);
  }
}

/** Polls an asynchronous `check` (a request, say) every 50 ms until it holds; throws after `ms`. */
export async function until(check: () => Promise<boolean>, ms = 60_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what} not met within ${ms} ms`);
    await sleep(50);
  }
}

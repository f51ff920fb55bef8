import { randomBytes } from 'node:crypto';
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { z } from 'zod';
import { errnoCode } from '../common/thrown';

/** How long to wait for the lock, and from what age a lock whose holder cannot be checked is stale. */
export interface LockOptions {
  waitMs: number;
  staleMs: number;
}

/**
 * What a lock file holds: who took it, so a lock left by a dead process can be told apart. Any
 * writer of the pins file writes one (another router's version too): what it must name is checked,
 * `at` is only shown.
 */
const HolderSchema = z.object({ pid: z.number(), host: z.string(), token: z.string(), at: z.unknown() });
type Holder = z.infer<typeof HolderSchema>;

/** The lock could not be taken within `waitMs`: someone holds it and looks alive. */
export class PinsLockBusyError extends Error {
  constructor(lock: string, holder: string) {
    super(`trust.pinsFile: ${lock} is held (${holder}); if no router or CLI is writing the pins file, remove it`);
    this.name = 'PinsLockBusyError';
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs `fn` holding `<file>.lock`, an exclusive lock between every process that writes the pins
 * file (routers, the CLI) on one host or on a shared volume: `open(O_CREAT|O_EXCL)`
 * creates the lock or fails, atomically, on local file systems and NFSv3+ alike. Synchronous on
 * purpose: the router reviews a catalog in the turn it arrives, and a holder keeps the lock only
 * to read, merge and write one small file (milliseconds).
 *
 * A lock left behind by a process that died is broken: at once when its holder is a process of
 * this host that no longer exists, otherwise when it is older than `staleMs`. It is broken by
 * renaming it aside and checking that what was renamed is the lock judged stale, so two breakers
 * cannot both take it.
 */
export function withPinsLock<T>(file: string, fn: () => T, o: LockOptions): T {
  const lock = `${file}.lock`;
  const me: Holder = { pid: process.pid, host: hostname(), token: randomBytes(12).toString('base64url'), at: new Date().toISOString() };
  const deadline = Date.now() + o.waitMs;
  for (;;) {
    if (tryCreate(lock, me)) break;
    const seen = readHolder(lock);
    if (seen !== undefined && isStale(seen, o.staleMs)) {
      breakStale(lock, seen.text);
      continue;
    }
    if (Date.now() >= deadline) throw new PinsLockBusyError(lock, describe(seen?.holder));
    // Jitter, so two waiters do not retry in step.
    Atomics.wait(sleeper, 0, 0, 5 + Math.floor(Math.random() * 20));
  }
  try {
    return fn();
  } finally {
    release(lock, me.token);
  }
}

function tryCreate(lock: string, me: Holder): boolean {
  let fd: number;
  try {
    fd = openSync(lock, 'wx', 0o644);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'EEXIST') return false;
    throw new Error(`trust.pinsFile: cannot create the lock ${lock} (${code ?? 'error'})`, { cause: err });
  }
  try {
    writeSync(fd, JSON.stringify(me) + '\n');
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The lock's text and holder (undefined holder: empty or unreadable, e.g. being written); undefined when there is no lock. */
function readHolder(lock: string): { text: string; holder: Holder | undefined; ageMs: number } | undefined {
  try {
    const ageMs = Date.now() - statSync(lock).mtimeMs;
    const text = readFileSync(lock, 'utf8');
    return { text, holder: parseHolder(text), ageMs };
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return undefined;
    throw err;
  }
}

/** The holder a lock names; undefined when it was created but not written yet, or is damaged: judged by its age alone. */
function parseHolder(text: string): Holder | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = HolderSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

function isStale(seen: { holder: Holder | undefined; ageMs: number }, staleMs: number): boolean {
  if (seen.ageMs > staleMs) return true;
  const h = seen.holder;
  if (h === undefined || h.host !== hostname()) return false;
  // Our own pid but not our lock (we never wait while holding one): a former process of this
  // host with the same pid, as after a container restart.
  return h.pid === process.pid || !processExists(h.pid);
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return errnoCode(err) === 'EPERM';
  }
}

function breakStale(lock: string, judged: string): void {
  const aside = `${lock}.${process.pid}.${randomBytes(6).toString('hex')}.stale`;
  try {
    renameSync(lock, aside);
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return; // someone else broke or released it
    throw err;
  }
  let taken: string;
  try {
    taken = readFileSync(aside, 'utf8');
  } catch {
    // Unreadable: treated as not the one judged, so it is put back below.
    taken = '\u0000';
  }
  if (taken !== judged) {
    // Between judging and renaming, another process broke the stale lock and took a fresh one:
    // put that one back (link fails if yet another lock exists, which then stands).
    try {
      linkSync(aside, lock);
    } catch {
      // EEXIST: a newer lock stands; nothing to restore.
    }
  }
  unlinkSync(aside);
}

function release(lock: string, token: string): void {
  const seen = readHolder(lock);
  // Only our own lock: if ours was broken as stale, the lock there now is someone else's.
  if (seen?.holder?.token === token) unlinkSync(lock);
}

function describe(holder: Holder | undefined): string {
  return holder === undefined ? 'holder unknown' : `pid ${holder.pid} on ${holder.host} since ${String(holder.at)}`;
}

import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';

/**
 * Programs some tests need beside Node (README "Quick start" lists them; `.ci/run` installs them).
 * A test that needs one and cannot find it fails with this message naming the Debian package,
 * never skips: a skipped check reads as a passed one.
 */
export const PREREQUISITES = {
  'redis-server': { debianPackage: 'redis-server', neededBy: 'the shared rate-limit tests need a real Redis' },
  promtool: { debianPackage: 'prometheus', neededBy: 'the /metrics tests lint the whole exposition with it' },
  valgrind: { debianPackage: 'valgrind', neededBy: 'the bench:instructions smoke run counts instructions under its callgrind' },
} as const;

export type Prerequisite = keyof typeof PREREQUISITES;

/** True when `command` is an executable file in one of `path`'s folders (no process is started). */
export function onPath(command: string, path = process.env.PATH ?? ''): boolean {
  return path.split(':').some((dir) => {
    if (dir === '') return false;
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Throws, naming the Debian package, unless `command` is on `path`. */
export function requireCommand(command: Prerequisite, path = process.env.PATH ?? ''): void {
  if (onPath(command, path)) return;
  const { debianPackage, neededBy } = PREREQUISITES[command];
  throw new Error(
    `${command} is not on PATH: ${neededBy}. Install the Debian package ${debianPackage} (apt-get install ${debianPackage}) or put a ${command} binary on PATH.`,
  );
}

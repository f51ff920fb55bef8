import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository's root (this file compiles to dist/bench/). */
export const ROOT = resolve(__dirname, '..', '..');

/** An earlier commit's router, ready to start: its sha and its compiled bench/router-child.js. */
export interface Build {
  sha: string;
  routerChild: string;
}

/**
 * An earlier commit, exported with `git archive` into `.tmp/compare-<sha>/` (kept for the next
 * run) and compiled with its own bench tsconfig. It runs on the packages its own lockfile names:
 * this tree's node_modules by symlink when the lockfiles are the same, else its own `npm ci`
 * (without install scripts), so a dependency change counts as a change. The lexicon is this
 * tree's, by symlink. Its `bench/router-child.ts` must speak the harness's IPC (every commit that
 * has that file does).
 */
export function buildAt(ref: string): Build {
  const sha = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = join(ROOT, '.tmp', `compare-${sha.slice(0, 12)}`);
  const routerChild = join(dir, 'dist', 'bench', 'router-child.js');
  if (existsSync(routerChild)) return { sha, routerChild };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'data'), { recursive: true });
  execFileSync('sh', ['-c', `git archive ${sha} | tar -x -C "${dir}"`], { cwd: ROOT, stdio: 'inherit' });
  const sameLock = readFileSync(join(dir, 'package-lock.json'), 'utf8') === readFileSync(join(ROOT, 'package-lock.json'), 'utf8');
  if (sameLock) symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  else execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  if (!existsSync(join(dir, 'data', 'lexicon'))) symlinkSync(join(ROOT, 'data', 'lexicon'), join(dir, 'data', 'lexicon'));
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, 'bench', 'tsconfig.json')], {
    cwd: dir,
    stdio: 'inherit',
  });
  if (!existsSync(routerChild)) throw new Error(`${ref} has no bench/router-child.ts to start its router with`);
  return { sha, routerChild };
}

/** The short sha of HEAD and whether tracked files differ from it. */
export function headOfTree(): { head: string; dirty: boolean } {
  const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
  return { head, dirty };
}

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ROOT, tempDir } from './support/router';

/**
 * `npm start` builds before it starts (`prestart`): only what changed is compiled again, and the
 * tests build elsewhere, so they never disturb the dist/ a router started by `npm start` runs from
 * (README "Quick start").
 */

const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const out = tempDir('centralmcp-build-');
after(() => rmSync(out, { recursive: true, force: true }));

/** The `build` script's compiler run, into `out` instead of dist/. */
function build(): void {
  const [command, ...args] = scripts.build.split(' ');
  assert.equal(command, 'tsc', `the build script runs tsc: ${scripts.build}`);
  const run = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), ...args, '--outDir', out], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
}

/** Every file of the build with its modification time. */
function stamps(dir: string): Map<string, number> {
  return new Map(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => {
        const path = join(entry.parentPath, entry.name);
        return [path, statSync(path).mtimeMs] as const;
      }),
  );
}

test('a build with nothing changed since the last one writes nothing', { timeout: 600_000 }, () => {
  build();
  const first = stamps(out);
  assert.ok(
    [...first.keys()].some((path) => path.endsWith(join('src', 'main.js'))),
    'the build holds the router',
  );
  build();
  assert.deepEqual(stamps(out), first);
});

test('no test script deletes or builds into dist/', () => {
  const testScripts = Object.entries(scripts).filter(([name]) => name.startsWith('test') || name === 'build:test' || name === 'fuzz');
  assert.ok(testScripts.length > 0);
  for (const [name, script] of testScripts) {
    assert.doesNotMatch(script, /\brm\b|(^|[\s'"=])(\.\/)?dist\/|tsconfig\.build\.json/, `${name}: ${script}`);
  }
  const runner = readFileSync(join(ROOT, 'scripts', 'test.mjs'), 'utf8');
  assert.doesNotMatch(runner, /rmSync\([^)]*['"]dist['"]/);
});

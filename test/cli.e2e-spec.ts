import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';

/** `centralmcp-router` as an operator types it: help is an answer, a wrong command a usage error. */

function cli(args: string[]): { code: number | null; stdout: string; stderr: string } {
  // No config is needed to ask for help: the environment names none.
  const run = spawnSync(process.execPath, [join(__dirname, '..', 'src', 'cli.js'), ...args], { env: { PATH: process.env.PATH ?? '' }, encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

test('--help prints the usage on stdout and exits 0', () => {
  for (const args of [['--help'], ['-h'], ['help'], ['pins', '--help'], ['pins', 'approve', '-h']]) {
    const run = cli(args);
    assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stdout, /^usage: centralmcp-router /, args.join(' '));
    assert.equal(run.stderr, '');
  }
});

test('no command, or an unknown one, is a usage error: exit 2, usage on stderr', () => {
  for (const args of [[], ['nosuch'], ['pins', 'frobnicate']]) {
    const run = cli(args);
    assert.equal(run.code, 2, args.join(' '));
    assert.match(run.stderr, /^usage: centralmcp-router /);
    assert.equal(run.stdout, '');
  }
});

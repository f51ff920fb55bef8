#!/usr/bin/env node
import 'reflect-metadata';
import { userInfo } from 'node:os';
import { messageOf } from './common/thrown';
import { ConfigError } from './config/config.errors';
import { loadConfigFromEnvironment } from './config/config.module';
import { LEARNING_USAGE, learningCommand } from './learning/learning.cli';
import { approvePending, parseSelector, type Selector } from './trust/domain/approval';
import { diffReport, listReport } from './trust/domain/pins-report';
import { readPinsFile, updatePinsFile } from './trust/pins-file.store';
import { PinsLockBusyError } from './trust/pins-lock';

/** The CLI waits longer than the router for the lock: a person can wait, a catalog review should not. */
const CLI_LOCK = { waitMs: 10_000, staleMs: 10_000 };

const USAGE =
  'usage: centralmcp-router pins list|diff|approve [backend[:tool]] [--by NAME]\n' +
  `       ${LEARNING_USAGE.replace('usage: ', '')}\n` +
  'reads the config named by CENTRALMCP_ROUTER_CONFIG (its trust.pinsFile); a running router picks an approval up within a second';

/**
 * `centralmcp-router pins …` (architecture §11.1): reviews and approves tool definitions in the pins file
 * without editing it by hand. Exit codes: 0 done, 1 nothing matched, 2 usage, 75 the pins file
 * stayed locked by another writer (try again), 78 bad config.
 */
function main(argv: string[]): number {
  const [group, command, ...rest] = argv;
  if (group !== 'pins' || !['list', 'diff', 'approve'].includes(command ?? '')) return fail(USAGE, 2);
  let by: string | undefined;
  let selector: Selector | undefined;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--by' && rest[i + 1] !== undefined) by = rest[++i];
    else if (selector === undefined && !rest[i].startsWith('-')) {
      selector = parseSelector(rest[i]);
      if (selector === undefined) return fail(`not a backend or backend:tool: ${JSON.stringify(rest[i].slice(0, 100))}`, 2);
    } else return fail(USAGE, 2);
  }
  let file: string | undefined;
  try {
    file = loadConfigFromEnvironment().trust?.pinsFile;
  } catch (err) {
    if (err instanceof ConfigError) return fail(err.message, 78);
    throw err;
  }
  if (file === undefined) return fail('the config has no trust.pinsFile', 78);
  const { doc } = readPinsFile(file);
  if (command === 'list') return out(listReport(doc, selector));
  if (command === 'diff') return out(diffReport(doc, selector));
  const approver = by ?? safeUser();
  // Under the pins lock, on the file as it is then: a router recording a new definition or another
  // approval at the same moment loses nothing.
  let approved;
  try {
    ({ value: approved } = updatePinsFile(file, CLI_LOCK, (current) => {
      const result = approvePending(current.doc, selector, approver, new Date().toISOString());
      return { doc: result.approved.length > 0 ? result.doc : undefined, value: result.approved };
    }));
  } catch (err) {
    if (err instanceof PinsLockBusyError) return fail(err.message, 75);
    throw err;
  }
  if (approved.length === 0) return fail('nothing pending matches', 1);
  return out(approved.map((p) => `approved ${p.backend}:${p.tool} ${p.sha256.slice(0, 12)} by ${approver}`).join('\n'));
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'cli';
  }
}

function out(text: string): number {
  process.stdout.write(text + '\n');
  return 0;
}

function fail(text: string, code: number): number {
  process.stderr.write(text + '\n');
  return code;
}

/** `learning …` reads its store (a file or Redis) asynchronously; the rest is `main`. */
async function run(argv: string[]): Promise<number> {
  if (argv[0] !== 'learning') return main(argv);
  let discovery;
  try {
    discovery = loadConfigFromEnvironment().discovery;
  } catch (err) {
    if (err instanceof ConfigError) return fail(err.message, 78);
    throw err;
  }
  const outcome = await learningCommand(argv.slice(1), discovery);
  if (outcome.out !== undefined) out(outcome.out);
  if (outcome.err !== undefined) fail(outcome.err, outcome.code);
  return outcome.code;
}

run(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    process.stderr.write(`${messageOf(err)}\n`);
    process.exitCode = 1;
  },
);

#!/usr/bin/env node
// First: the young generation is held small while the router boots (young-generation.ts).
import './young-generation';
import 'reflect-metadata';
// Before @nestjs/common: Nest's logger loads with its date formatter deferred (nest-logger-preload.ts).
import './nest-logger-preload';
import { userInfo } from 'node:os';
import { messageOf } from './common/thrown';
import { ConfigError } from './config/config.errors';
import { loadConfigFromEnvironment } from './config/config.module';
import { LEARNING_USAGE, learningCommand } from './learning/learning.cli';
import { escapeHidden } from './registry/domain/sanitize';
import { approvePending, hashMismatches, MIN_HASH_DIGITS, parseHashPrefix, parseSelector, unknownBackendMessage, type Selector } from './trust/domain/approval';
import { diffReport, listReport } from './trust/domain/pins-report';
import { readPinsFile, updatePinsFile } from './trust/pins-file.store';
import { PinsLockBusyError } from './trust/pins-lock';

/** The CLI waits longer than the router for the lock: a person can wait, a catalog review should not. */
const CLI_LOCK = { waitMs: 10_000, staleMs: 10_000 };

const USAGE =
  'usage: centralmcp-router stdio [--config FILE] [--http]\n' +
  '       centralmcp-router pins list|diff [backend[:tool]]\n' +
  '       centralmcp-router pins approve backend[:tool] [--hash HEX] [--by NAME]\n' +
  `       ${LEARNING_USAGE.replace('usage: ', '')}\n` +
  'reads the config named by CENTRALMCP_ROUTER_CONFIG (its trust.pinsFile); a running router picks an approval up within a second;\n' +
  `--hash (at least ${MIN_HASH_DIGITS} hex digits of the sha256 that pins diff shows) approves backend:tool only if its pending definition is that one`;

interface Args {
  command: 'list' | 'diff' | 'approve';
  selector?: Selector;
  by?: string;
  hash?: string;
}

/**
 * `centralmcp-router pins …` (architecture §11.1): reviews and approves tool definitions in the pins file
 * without editing it by hand. Exit codes: 0 done (and `--help`), 1 nothing matched (or not the reviewed
 * definition), 2 usage, 75 the pins file stayed locked by another writer (try again), 78 bad
 * config or pins file.
 */
function main(argv: string[]): number {
  // Asking for help is not a usage error: the usage goes to stdout, and the exit is 0.
  if (argv.some((arg) => arg === '--help' || arg === '-h') || argv[0] === 'help') return out(USAGE);
  const args = parseArgs(argv);
  if (typeof args === 'string') return fail(args, 2);
  let config;
  try {
    config = loadConfigFromEnvironment();
    const file = config.trust?.pinsFile;
    if (file === undefined) return fail('the config has no trust.pinsFile', 78);
    return runPins(
      args,
      file,
      config.backends.map((b) => b.name),
    );
  } catch (err) {
    if (err instanceof ConfigError) return fail(err.message, 78);
    if (err instanceof PinsLockBusyError) return fail(err.message, 75);
    throw err;
  }
}

/** The arguments, or the usage error to print. */
function parseArgs(argv: string[]): Args | string {
  const [group, command, ...rest] = argv;
  if (group !== 'pins' || (command !== 'list' && command !== 'diff' && command !== 'approve')) return USAGE;
  const args: Args = { command };
  for (let i = 0; i < rest.length; i++) {
    const value = rest[i + 1];
    if (rest[i] === '--by' && value !== undefined && command === 'approve') [args.by, i] = [value, i + 1];
    else if (rest[i] === '--hash' && value !== undefined && command === 'approve') {
      args.hash = parseHashPrefix(value);
      if (args.hash === undefined) return `--hash takes ${MIN_HASH_DIGITS} to 64 hex digits of a sha256 (pins diff shows them)`;
      i++;
    } else if (args.selector === undefined && !rest[i].startsWith('-')) {
      args.selector = parseSelector(rest[i]);
      if (args.selector === undefined) return `not a backend or backend:tool: ${JSON.stringify(rest[i].slice(0, 100))}`;
    } else return USAGE;
  }
  if (command === 'approve' && args.selector === undefined) return USAGE;
  if (args.hash !== undefined && args.selector?.tool === undefined) return '--hash approves one tool: name it as backend:tool';
  return args;
}

function runPins(args: Args, file: string, configured: readonly string[]): number {
  const { doc } = readPinsFile(file);
  const unknown = args.selector === undefined ? undefined : unknownBackendMessage(doc, args.selector, configured);
  if (unknown !== undefined) return fail(unknown, 1);
  if (args.command === 'list') return out(listReport(doc, args.selector));
  if (args.command === 'diff') return out(diffReport(doc, args.selector));
  const selector = args.selector!;
  const approver = args.by ?? safeUser();
  // Under the pins lock, on the file as it is then: a router recording a new definition or another
  // approval at the same moment loses nothing, and the hash is checked against what is approved.
  const { value: result } = updatePinsFile(file, CLI_LOCK, (current) => {
    const mismatched = args.hash === undefined ? [] : hashMismatches(current.doc, selector, args.hash);
    if (mismatched.length > 0) return { value: { mismatched, approved: [] } };
    const approval = approvePending(current.doc, selector, approver, new Date().toISOString());
    return { doc: approval.approved.length > 0 ? approval.doc : undefined, value: { mismatched, approved: approval.approved } };
  });
  const name = `${selector.backend}${selector.tool !== undefined ? `:${selector.tool}` : ''}`;
  if (result.mismatched.length > 0) {
    const seen = result.mismatched[0].sha256;
    return fail(
      escapeHidden(
        `${name}: the pending definition is sha256 ${seen}, not ${args.hash}…: nothing approved (the backend served another definition since it was reviewed; see pins diff)`,
      ),
      1,
    );
  }
  if (result.approved.length === 0) return fail(escapeHidden(`nothing pending matches ${name}`), 1);
  return out(escapeHidden(result.approved.map((p) => `approved ${p.backend}:${p.tool} sha256 ${p.sha256} by ${approver}`).join('\n')));
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

/** `stdio` serves until its input ends; `learning …` reads its store (a file or Redis) asynchronously; the rest is `main`. */
async function run(argv: string[]): Promise<number> {
  if (argv[0] === 'stdio') {
    // Loaded only for this command: the others need none of the application.
    const { runStdio } = await import('./stdio-main.js');
    // Ends the process itself once drained; an error before it serves (a port taken) ends it here.
    await runStdio(argv.slice(1)).catch((err: unknown) => {
      process.stderr.write(`${messageOf(err)}\n`);
      process.exit(1);
    });
    return 0;
  }
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

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { until, waitFor } from './support/backend-processes';
import { FAULT_SERVER, faultStdioBackend, RawMcpClient } from './support/fault-backends';
import { startRouter, tempDir, testConfig, type RunningRouter } from './support/router';

/**
 * Writers of one pins file lose nothing. A running router keeps recording new
 * definitions of a backend that rewrites a tool again and again, while one `pins approve` per
 * other backend runs at the same moment, each its own process. Every approval and the router's
 * last pending entry must all be in the file at the end: each writer read, merged and wrote under
 * the pins lock, starting from the previous writer's result.
 */

interface PinsFile {
  pins: { backend: string; tool: string; sha256: string; approvedBy: string }[];
  pending: { backend: string; tool: string; definition: { description?: string } }[];
}

const APPROVED = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
const CHURN = 'churn';

const dir = tempDir('centralmcp-pins-writers-');
const pinsFile = join(dir, 'pins.json');
const configFile = join(dir, 'router.yaml');
let router: RunningRouter;
let client: RawMcpClient;

const readPins = (): PinsFile => JSON.parse(readFileSync(pinsFile, 'utf8')) as PinsFile;

/** `centralmcp-router pins …` as its own process, started without waiting for the others. */
function pinsCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(__dirname, '..', 'src', 'cli.js'), 'pins', ...args], {
    env: { PATH: process.env.PATH ?? '', CENTRALMCP_ROUTER_CONFIG: configFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

before(async () => {
  const names = [...APPROVED, CHURN];
  writeFileSync(
    configFile,
    [
      'backends:',
      ...names.flatMap((n) => [
        `  ${n}:`,
        '    transport: stdio',
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(FAULT_SERVER)}]`,
      ]),
      'trust:',
      `  pinsFile: ${JSON.stringify(pinsFile)}`,
      '',
    ].join('\n'),
  );
  router = await startRouter(
    testConfig(
      names.map((n) => faultStdioBackend(n)),
      { logLevel: 'error', trust: { mode: 'enforce', pinsFile, approveNewBackends: false, relistSeconds: 0 } },
    ),
  );
  client = new RawMcpClient(router.url);
  await waitFor(() => names.every((n) => readPins().pending.some((p) => p.backend === n)), 60_000, 'every backend pending');
});
after(async () => {
  client?.close();
  await router?.close();
});

describe('concurrent writers of the pins file', () => {
  test('approvals from eight CLI processes at once and the router recording new definitions: nothing is lost', async () => {
    const first = await pinsCli(['approve', CHURN, '--by', 'setup']);
    assert.equal(first.code, 0, first.stderr);
    const toolsOf = (backend: string) =>
      readPins()
        .pending.filter((p) => p.backend === backend)
        .map((p) => p.tool)
        .sort();
    const expected = new Map(APPROVED.map((b) => [b, toolsOf(b)]));
    assert.ok([...expected.values()].every((tools) => tools.length > 3));
    await until(async () => (await client.read('fast', CHURN)).status === 'ok', 60_000, 'churn approved in the router');

    // The router writes a new pending definition of churn:fast on every rewrite, while the CLIs
    // run: each rewrite waits for the router's record of the one before (its pending entry), so
    // the router writes as often as it can and no more.
    let cliDone = false;
    let rewrites = 0;
    const recorded = (n: number) => readPins().pending.some((p) => p.backend === CHURN && p.tool === 'fast' && p.definition.description === `rewritten ${n}`);
    const churn = (async () => {
      while (!cliDone) {
        const answer = await client.read('fixture_set_description', CHURN, { text: `rewritten ${++rewrites}`, notify: true });
        assert.equal(answer.status, 'ok', answer.error?.message);
        await waitFor(() => cliDone || recorded(rewrites), 60_000, `rewrite ${rewrites} recorded`);
      }
    })();
    const runs = await Promise.all(APPROVED.map((b) => pinsCli(['approve', b, '--by', `op-${b}`])));
    cliDone = true;
    await churn;

    for (const [i, run] of runs.entries()) {
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout.trim().split('\n').length, expected.get(APPROVED[i])!.length, run.stdout);
    }
    await waitFor(() => recorded(rewrites), 60_000, 'the last rewrite recorded');
    const pins = readPins();
    for (const [backend, tools] of expected) {
      const pinned = pins.pins.filter((p) => p.backend === backend);
      assert.deepEqual(pinned.map((p) => p.tool).sort(), tools, `every approval of ${backend} kept`);
      assert.ok(pinned.every((p) => p.approvedBy === `op-${backend}`));
      assert.equal(pins.pending.filter((p) => p.backend === backend).length, 0, `nothing of ${backend} left pending`);
    }
    assert.ok(
      pins.pins.some((p) => p.backend === CHURN && p.tool === 'fast' && p.approvedBy === 'setup'),
      'the first approval kept too',
    );
    assert.ok(rewrites > 1, 'the router wrote while the CLIs ran');
    // The router took every approval up without a restart.
    for (const backend of APPROVED) await until(async () => (await client.read('fast', backend)).status === 'ok', 60_000, `${backend}:fast callable`);
    assert.equal(existsSync(`${pinsFile}.lock`), false, 'no lock file left behind');
  });

  test('an approval waits for the lock and applies on top of what its holder wrote', async () => {
    // This test process takes the lock, as a writer in the middle of its change would hold it.
    const lock = `${pinsFile}.lock`;
    writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), token: 'test-holder', at: new Date().toISOString() }), { flag: 'wx' });
    // A writer that finds the lock taken reads it to judge whether its holder is alive: that read
    // (the lock's access time moving off the epoch) is the event that the CLI is waiting. Until
    // then the holder keeps its lock fresh, so a slow CLI start never sees it as stale.
    const touch = () => utimesSync(lock, new Date(0), new Date());
    touch();
    let exited = false;
    const approving = pinsCli(['approve', `${CHURN}:fast`, '--by', 'waiter']).then((r) => ((exited = true), r));
    await waitFor(() => exited || statSync(lock).atimeMs > 0 || (touch(), false), 60_000, 'the CLI reading the held lock');
    assert.equal(exited, false, 'the CLI waits while the lock is held');
    // The holder's change: a hand-made pin, written while the CLI waits.
    const held = readPins() as PinsFile & { version: number };
    const handmade = { ...held.pins.find((p) => p.backend === 'alpha' && p.tool === 'fail')!, backend: 'zulu', approvedBy: 'holder' };
    writeFileSync(pinsFile, JSON.stringify({ ...held, pins: [...held.pins, handmade] }, null, 2) + '\n');
    unlinkSync(lock);
    const run = await approving;
    assert.equal(run.code, 0, run.stderr);
    const after = readPins();
    assert.ok(
      after.pins.some((p) => p.backend === 'zulu' && p.approvedBy === 'holder'),
      "the holder's change kept",
    );
    assert.ok(
      after.pins.some((p) => p.backend === CHURN && p.tool === 'fast' && p.approvedBy === 'waiter'),
      'the approval applied',
    );
    assert.equal(existsSync(lock), false);
  });

  test('a lock left by a process that died is broken at once', async () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const lock = `${pinsFile}.lock`;
    writeFileSync(lock, JSON.stringify({ pid: Number(dead.stdout), host: hostname(), token: 'dead-holder', at: new Date().toISOString() }), { flag: 'wx' });
    await client.read('fixture_set_description', CHURN, { text: 'after the crash', notify: true });
    await waitFor(
      () => readPins().pending.some((p) => p.backend === CHURN && p.definition.description === 'after the crash'),
      60_000,
      'router wrote past the dead lock',
    );
    const run = await pinsCli(['approve', CHURN, '--by', 'after-crash']);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(readPins().pins.some((p) => p.backend === CHURN && p.tool === 'fast' && p.approvedBy === 'after-crash'));
    assert.equal(existsSync(lock), false);
  });
});

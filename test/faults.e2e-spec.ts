import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BackendsService } from '../src/backends/backends.service';
import type { BackendState } from '../src/backends/backends.types';
import { livingInGroup, until, waitFor } from './support/backend-processes';
import {
  childrenOf,
  faultHttpBackend,
  faultStdioBackend,
  type FaultHttpServer,
  RawMcpClient,
  readCounts,
  startFaultHttp,
  timed,
} from './support/fault-backends';
import { startRouter, tempDir, testConfig, type RunningRouter, type SingleAnswer } from './support/router';

/**
 * Fault tests: a backend that hangs, sleeps past its deadline, crashes mid-call, answers 12 MiB or
 * writes malformed JSON-RPC fails only the calls that touch it, with status `error`, at its
 * deadline or at once; the other backends keep serving; a crashed stdio backend comes back; a
 * list_changed storm is folded into a few refreshes; a flip of annotations is only believed once
 * a refresh brings it; nothing outlives the router.
 *
 * Outcomes and order, not milliseconds: how much a fault costs a healthy backend's latency is
 * measured side by side in `npm run bench` (BENCHMARKS.md, section 5), not asserted here.
 */

/**
 * The faulty backends' call timeout: a hung call must answer `error` at this deadline. Long
 * enough that a healthy call beside a fault on the same backend (which may queue behind a 12 MiB
 * answer on the same pipe) keeps it with room to spare beside CPU hogs.
 */
const FAULT_TIMEOUT_MS = 5000;
/** A timed-out call answers within this many deadlines of being sent (the deadline is kept). */
const DEADLINE_MARGIN = 5;
/** Healthy calls per fault injection, two at a time (one per healthy backend). */
const HEALTHY_CALLS = 200;
const CONCURRENCY = 2;
/** A fault is injected with every this many healthy calls: its pace follows the healthy load's. */
const FAULT_EVERY = 10;

describe('faults: a misbehaving backend fails only its own calls', () => {
  const dir = tempDir('centralmcp-faults-');
  const countFile = (name: string) => join(dir, `${name}.counts`);
  const baselineChildren = childrenOf(process.pid).length;
  let faultyHttp: FaultHttpServer;
  let crashyHttp: FaultHttpServer;
  let crashloopHttp: FaultHttpServer;
  let healthyHttp: FaultHttpServer;
  let router: RunningRouter;
  let client: RawMcpClient;
  /** Every stdio process group the router ran, so the last test can prove none survives. */
  const groups = new Set<number>();

  const states = (): BackendState[] => {
    const all = router.app.get(BackendsService).states();
    for (const s of all) if (s.pid !== undefined) groups.add(s.pid);
    return all;
  };
  const state = (name: string) => states().find((s) => s.name === name)!;
  const waitUp = (name: string, ms = 60_000) => waitFor(() => state(name).status === 'up', ms, `${name} up`);

  before(async () => {
    [faultyHttp, crashyHttp, crashloopHttp, healthyHttp] = await Promise.all([
      startFaultHttp('faultyhttp', { countFile: countFile('faultyhttp') }),
      startFaultHttp('crashyhttp', { countFile: countFile('crashyhttp') }),
      startFaultHttp('crashloophttp', {}),
      startFaultHttp('healthyhttp', { countFile: countFile('healthyhttp') }),
    ]);
    const faulty = { timeoutMs: FAULT_TIMEOUT_MS };
    router = await startRouter(
      testConfig([
        faultStdioBackend('healthy', { countFile: countFile('healthy') }),
        faultHttpBackend('healthyhttp', healthyHttp),
        faultStdioBackend('faulty', { countFile: countFile('faulty') }, faulty),
        faultStdioBackend('crashy', { countFile: countFile('crashy') }, faulty),
        faultHttpBackend('faultyhttp', faultyHttp, faulty),
        faultHttpBackend('crashyhttp', crashyHttp, faulty),
        // Crashed over and over by the latency test: their backoff ends up at 30 s, so nothing
        // else uses them.
        faultStdioBackend('crashloop', {}, faulty),
        faultHttpBackend('crashloophttp', crashloopHttp, faulty),
      ]),
    );
    client = new RawMcpClient(router.url);
    states();
    // Warm the JIT and every connection before anything is timed.
    await timed(400, CONCURRENCY, async (i) => void (await client.read('fast', i % 2 ? 'healthy' : 'healthyhttp')));
  });

  after(async () => {
    client?.close();
    await router?.close();
    await Promise.all([faultyHttp, crashyHttp, crashloopHttp, healthyHttp].map((s) => s?.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  interface FaultCase {
    what: string;
    backend: string;
    tool: string;
    args?: Record<string, unknown>;
    /** `error` fails fast; `timeout` answers `error` at the deadline; `ok` is not a failure at all. */
    expect: 'error' | 'timeout' | 'ok';
  }

  // What each fault must do to its own call. Over HTTP one response answers one request, so
  // "garbage" is a body cut mid-JSON (fails fast); over stdio a bad line is skipped. A 12 MiB
  // answer is over the 8 MiB cap on either transport (below the SDK's 10 MiB read buffer).
  const cases: FaultCase[] = [
    { what: 'hang (stdio)', backend: 'faulty', tool: 'hang', expect: 'timeout' },
    { what: 'sleep past the deadline (stdio)', backend: 'faulty', tool: 'sleep', args: { ms: 600_000 }, expect: 'timeout' },
    { what: 'tool error (stdio)', backend: 'faulty', tool: 'fail', expect: 'error' },
    { what: '12 MiB response (stdio)', backend: 'faulty', tool: 'huge', expect: 'error' },
    { what: 'garbage lines, then an answer (stdio)', backend: 'faulty', tool: 'malformed', expect: 'ok' },
    { what: 'a result that is no CallToolResult (stdio)', backend: 'faulty', tool: 'malformed', args: { kind: 'bad_result' }, expect: 'error' },
    { what: 'garbage and no answer (stdio)', backend: 'faulty', tool: 'malformed', args: { kind: 'only' }, expect: 'timeout' },
    { what: 'exit mid-call (stdio)', backend: 'crashy', tool: 'crash', expect: 'error' },
    { what: 'hang (http)', backend: 'faultyhttp', tool: 'hang', expect: 'timeout' },
    { what: 'sleep past the deadline (http)', backend: 'faultyhttp', tool: 'sleep', args: { ms: 600_000 }, expect: 'timeout' },
    { what: '12 MiB response with Content-Length (http)', backend: 'faultyhttp', tool: 'huge', expect: 'error' },
    { what: '12 MiB response, chunked (http)', backend: 'faultyhttp', tool: 'huge', args: { chunked: true }, expect: 'error' },
    { what: 'a body cut mid-JSON (http)', backend: 'faultyhttp', tool: 'malformed', expect: 'error' },
    { what: 'a result that is no CallToolResult (http)', backend: 'faultyhttp', tool: 'malformed', args: { kind: 'bad_result' }, expect: 'error' },
    // One POST carries its one answer: a body that answers another id fails at once, not at the deadline.
    { what: 'an answer to another id only (http)', backend: 'faultyhttp', tool: 'malformed', args: { kind: 'only' }, expect: 'error' },
    { what: 'exit mid-call (http)', backend: 'crashyhttp', tool: 'crash', expect: 'error' },
  ];

  /** Brings crashed backends back: the router restarts stdio ones; HTTP ones are ours to restart. */
  async function recover(): Promise<void> {
    if (crashyHttp.child.exitCode !== null || crashyHttp.child.signalCode !== null) await crashyHttp.restart();
    await Promise.all(['crashy', 'crashyhttp', 'faulty', 'faultyhttp'].map((b) => waitUp(b)));
  }

  test('each fault answers its own call with `error`, at its deadline or at once; every other call is ok, on that backend too', async () => {
    for (const c of cases) {
      await recover();
      const started = performance.now();
      const healthyCalls = Array.from({ length: 6 }, (_, i) => client.read('fast', ['healthy', 'healthyhttp'][i % 2]));
      const faultCall = client.read(c.tool, c.backend, c.args ?? {});
      // Another call on the same backend, in flight beside the fault: only a crash may take it down.
      const crashes = c.tool === 'crash';
      const neighbour = crashes ? undefined : client.read('sleep', c.backend, { ms: 50 });
      // A batch that touches the faulty backend once, between healthy entries.
      const batch = client.call('invoke_read_tool_batch', {
        calls: [
          { name: 'fast', server: 'healthy' },
          { name: c.tool, server: c.backend, arguments: c.args ?? {} },
          { name: 'fast', server: 'healthyhttp' },
        ],
      });
      const fault = await faultCall;
      const elapsed = performance.now() - started;
      if (c.expect === 'ok') {
        assert.equal(fault.status, 'ok', `${c.what}: ${fault.error?.message}`);
      } else {
        assert.equal(fault.status, 'error', c.what);
        assert.equal(fault.ok, false);
        assert.equal(fault.result, undefined, 'never both result and error');
        assert.ok(fault.error, c.what);
        assert.ok(typeof fault.error.message === 'string' && fault.error.message.length <= 500, c.what);
        // A timeout is the deadline's doing; any other failure came at once, for its own reason.
        if (c.expect === 'timeout') {
          assert.equal(fault.error.code, 'backend_timeout', c.what);
          assert.match(fault.error.message, new RegExp(`within ${FAULT_TIMEOUT_MS} ms`), c.what);
        } else {
          assert.notEqual(fault.error.code, 'backend_timeout', `${c.what}: ${fault.error.message}`);
        }
      }
      // The deadline is kept: measured from the call, with a margin of DEADLINE_MARGIN deadlines.
      if (c.expect === 'timeout') assert.ok(elapsed < DEADLINE_MARGIN * FAULT_TIMEOUT_MS, `${c.what}: answered after ${Math.round(elapsed)} ms`);
      for (const answer of await Promise.all(healthyCalls)) assert.equal(answer.status, 'ok', `${c.what}: healthy call ${answer.error?.message}`);
      if (neighbour) assert.equal((await neighbour).status, 'ok', `${c.what}: another call on the same backend failed`);
      const b = await batch;
      assert.deepEqual(
        b.results.map((r) => [r.index, r.status]),
        [
          [0, 'ok'],
          [1, c.expect === 'ok' ? 'ok' : 'error'],
          [2, 'ok'],
        ],
        c.what,
      );
    }
  });

  test('a call past its deadline is cancelled at the backend, over stdio and over HTTP', async () => {
    await recover();
    const cancelled = async (backend: string) =>
      Number(((await client.read('stats', backend)).result?.structuredContent?.counts as Record<string, number> | undefined)?.['notifications/cancelled'] ?? 0);
    for (const backend of ['faulty', 'faultyhttp']) {
      const before = await cancelled(backend);
      assert.equal((await client.read('hang', backend)).status, 'error');
      // MCP "Cancellation": the requester sends notifications/cancelled for a request it gave up on.
      await until(async () => (await cancelled(backend)) > before, 60_000, `${backend}: notifications/cancelled received`);
      assert.equal(await cancelled(backend), before + 1, backend);
    }
  });

  // Each fault is injected once per FAULT_EVERY healthy calls, on every faulty backend of its row,
  // so faults and healthy calls overlap however fast or slow the box runs.
  const injections: { what: string; faults: [string, string, Record<string, unknown>][] }[] = [
    {
      what: 'hangs',
      faults: [
        ['faulty', 'hang', {}],
        ['faultyhttp', 'hang', {}],
      ],
    },
    {
      what: 'crashes',
      faults: [
        ['crashloop', 'crash', {}],
        ['crashloophttp', 'crash', {}],
      ],
    },
    {
      what: 'writes malformed JSON-RPC',
      faults: [
        ['faulty', 'malformed', { kind: 'bad_result' }],
        ['faulty', 'malformed', {}],
        ['faultyhttp', 'malformed', {}],
      ],
    },
    { what: 'floods 12 MiB responses over stdio', faults: [['faulty', 'huge', {}]] },
    { what: 'floods 12 MiB responses over HTTP', faults: [['faultyhttp', 'huge', { chunked: true }]] },
  ];
  for (const { what, faults } of injections) {
    test(`a healthy backend answers every call while another ${what}`, async () => {
      await recover();
      const injected: Promise<SingleAnswer>[] = [];
      const answers = { healthy: 0, healthyhttp: 0 };
      await timed(HEALTHY_CALLS, CONCURRENCY, async (i) => {
        if (i % FAULT_EVERY === 0) for (const [backend, tool, args] of faults) injected.push(client.read(tool, backend, args));
        const backend = i % 2 ? 'healthy' : 'healthyhttp';
        const answer = await client.read('fast', backend);
        assert.equal(answer.status, 'ok', `${backend} while another ${what}: ${answer.error?.message}`);
        answers[backend]++;
      });
      assert.deepEqual(answers, { healthy: HEALTHY_CALLS / 2, healthyhttp: HEALTHY_CALLS / 2 });
      // Every fault was a real call, answered once (with `error`, or `ok` after garbage lines).
      const faulted = await Promise.all(injected);
      assert.equal(faulted.length, (HEALTHY_CALLS / FAULT_EVERY) * faults.length);
      assert.ok(
        faulted.some((a) => a.status === 'error'),
        `no ${what} fault failed: ${JSON.stringify(faulted[0])}`,
      );
    });
  }

  test('a crashed stdio backend is restarted and serves again; calls meanwhile fail at once', async () => {
    await recover();
    const before = state('crashy');
    const crashed = await client.read('crash', 'crashy');
    assert.equal(crashed.status, 'error');
    await waitFor(() => state('crashy').status !== 'up', 60_000, 'crashy marked down');
    const meanwhile = await client.read('fast', 'crashy');
    assert.equal(meanwhile.status, 'error');
    assert.ok(meanwhile.error);
    assert.notEqual(meanwhile.error.code, 'backend_timeout', `a call to a down backend fails at once, not at its timeout: ${meanwhile.error.message}`);
    await waitUp('crashy');
    const after = state('crashy');
    assert.notEqual(after.pid, before.pid);
    assert.ok(after.restarts > before.restarts);
    assert.equal((await client.read('fast', 'crashy')).status, 'ok');
    assert.equal(livingInGroup(before.pid!).length, 0, 'the crashed process group is gone');
  });

  test('a 12 MiB stdio response fails that call only, and no other call in flight on that backend', async () => {
    await recover();
    const file = countFile('faulty');
    const before = readCounts(file)['tools/call:sleep'] ?? 0;
    const sleepers = [150, 300, 600].map((ms) => client.read('sleep', 'faulty', { ms }));
    const huge = client.read('huge', 'faulty');
    const fast = client.read('fast', 'faulty');
    const answer = await huge;
    assert.equal(answer.status, 'error');
    assert.equal(answer.error!.code, 'response_too_large');
    assert.match(answer.error!.message, /size limit/);
    for (const other of [...(await Promise.all(sleepers)), await fast]) assert.equal(other.status, 'ok', other.error?.message);
    assert.equal((readCounts(file)['tools/call:sleep'] ?? 0) - before, 3);
    assert.equal(state('faulty').status, 'up');
    assert.equal(state('faulty').restarts, 0, 'the connection was never dropped');
  });

  test('after close no backend process of ours is alive', async () => {
    states();
    // Every stdio backend ran, and each crashy one more than once: the list is not empty.
    assert.ok(groups.size >= 4, `stdio process groups seen: ${[...groups].join(', ')}`);
    await router.close();
    for (const pgid of groups) await waitFor(() => livingInGroup(pgid).length === 0, 60_000, `process group ${pgid} gone`);
    await Promise.all([faultyHttp, crashyHttp, crashloopHttp, healthyHttp].map((s) => s.stop()));
    await waitFor(() => childrenOf(process.pid).length <= baselineChildren, 60_000, 'children back to baseline');
  });
});

describe('faults: a tools/list_changed storm', () => {
  const dir = tempDir('centralmcp-storm-');
  const stormCounts = join(dir, 'storm.counts');
  /** Notifications per burst, sent back to back by the backend. */
  const BURST = 50;
  /** A burst with every this many calls. */
  const BURST_EVERY = 100;
  const CALLS = 600;
  let router: RunningRouter;
  let client: RawMcpClient;

  before(async () => {
    router = await startRouter(testConfig([faultStdioBackend('storm', { countFile: stormCounts, tools: 200 }), faultStdioBackend('calm', {})]));
    client = new RawMcpClient(router.url);
  });
  after(async () => {
    client?.close();
    await router?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Counts, not a clock: the router coalesces notifications (architecture §3), so each burst costs
  // at most two refreshes, one already running when it arrived and one after it, however long
  // the box takes to deliver and to list.
  test('folds each burst of list_changed into at most two refreshes, and no call fails meanwhile', async () => {
    const lists = () => readCounts(stormCounts)['tools/list'] ?? 0;
    await waitFor(() => lists() >= 1, 60_000, 'storm listed');
    const listsBefore = lists();
    const answers: SingleAnswer[] = [];
    let bursts = 0;
    await timed(CALLS, 4, async (i) => {
      if (i % BURST_EVERY === 0) {
        bursts++;
        answers.push(await client.read('fixture_notify_list_changed', 'storm', { times: BURST }));
      }
      // The storm backend's own calls (a fault tool and a synthetic one), and a calm neighbour's.
      const [name, server] = [
        ['fast', 'storm'],
        ['github_get_issue', 'storm'],
        ['fast', 'calm'],
      ][i % 3];
      answers.push(await client.read(name, server, { id: String(i) }));
    });
    await waitFor(() => lists() > listsBefore, 60_000, 'the storm refreshed the catalog');
    const refreshes = lists() - listsBefore;
    process.stdout.write(`# storm: ${bursts * BURST} list_changed in ${bursts} bursts -> ${refreshes} tools/list\n`);
    assert.ok(refreshes <= 2 * bursts, `${refreshes} refreshes for ${bursts} bursts of ${BURST}`);
    assert.equal(answers.filter((a) => a.status !== 'ok').length, 0, JSON.stringify(answers.find((a) => a.status !== 'ok')));
  });
});

describe('faults: annotations flipped by the backend', () => {
  const dir = tempDir('centralmcp-flip-');
  const flipCounts = join(dir, 'flip.counts');
  let router: RunningRouter;
  let client: RawMcpClient;
  const logged: string[] = [];
  const realWrite = process.stdout.write.bind(process.stdout);

  before(async () => {
    // The router logs JSON lines to stdout; keep them for the "the change is logged" check.
    process.stdout.write = (chunk: string | Uint8Array, ...rest: unknown[]) => {
      const line = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      if (line.startsWith('{"level"')) {
        logged.push(line);
        return true;
      }
      return (realWrite as (...a: unknown[]) => boolean)(chunk, ...rest);
    };
    router = await startRouter(testConfig([faultStdioBackend('flip', { countFile: flipCounts })], { logLevel: 'info' }));
    client = new RawMcpClient(router.url);
  });
  after(async () => {
    client?.close();
    await router?.close();
    process.stdout.write = realWrite;
    rmSync(dir, { recursive: true, force: true });
  });

  const purges = () => readCounts(flipCounts)['tools/call:purge_cache'] ?? 0;
  const hit = async () => {
    const { hits } = await client.call('find_tool', { query: 'purge cache', server: 'flip', top_k: 10 });
    return hits.find((h) => h.name === 'purge_cache');
  };

  test('destructive → read-only: blocked until a refresh brings the change, which is logged', async () => {
    assert.equal((await client.read('purge_cache', 'flip')).status, 'blocked');
    const lists = readCounts(flipCounts)['tools/list'] ?? 0;
    // The backend now says read-only but has not told anyone: the router's catalog says otherwise.
    await client.read('fixture_set_annotations', 'flip', { readOnly: true, notify: false });
    assert.equal((await client.read('purge_cache', 'flip')).status, 'blocked');
    // Not read-only, and writes are off: find_tool does not offer it.
    assert.equal(await hit(), undefined);
    assert.equal(purges(), 0, 'a blocked call never reaches the backend');
    // Nothing was announced, so nothing was listed again: the verdicts above are the old catalog's.
    assert.equal(readCounts(flipCounts)['tools/list'] ?? 0, lists, 'no refresh without an announcement');
    const mark = logged.length;
    await client.read('fixture_notify_list_changed', 'flip');
    await waitFor(() => logged.slice(mark).some((l) => l.includes('catalog updated') && l.includes('"flip"')), 60_000, 'refresh logged');
    assert.equal((await hit())?.read_only, true);
    const allowed = await client.read('purge_cache', 'flip');
    assert.equal(allowed.status, 'ok', allowed.error?.message);
    assert.equal(purges(), 1);
  });

  test('read-only → destructive: blocked again as soon as the refresh lands', async () => {
    const mark = logged.length;
    await client.read('fixture_set_annotations', 'flip', { readOnly: false });
    await waitFor(() => logged.slice(mark).some((l) => l.includes('catalog updated')), 60_000, 'refresh logged');
    assert.equal((await client.read('purge_cache', 'flip')).status, 'blocked');
    assert.equal(purges(), 1);
  });

  test('a call after an announced change is decided on the announced tools, also inside one batch', async () => {
    const before = purges();
    const batch = (readOnly: boolean) =>
      client.call('invoke_read_tool_batch', {
        calls: [
          { name: 'fixture_set_annotations', server: 'flip', arguments: { readOnly } },
          { name: 'purge_cache', server: 'flip' },
        ],
      });
    // Now read-only: the second entry waits for the refresh the first one announced, and runs.
    const allowed = (await batch(true)).results as { status: string; error?: string }[];
    assert.equal(allowed[0].status, 'ok');
    assert.equal(allowed[1].status, 'ok', allowed[1].error);
    assert.equal(purges(), before + 1);
    // Destructive again: the second entry must not reach the backend in the window before the refresh.
    const blocked = (await batch(false)).results as { status: string }[];
    assert.equal(blocked[1].status, 'blocked');
    assert.equal(purges(), before + 1, 'the destructive tool never reached the backend');
  });

  test('the log names the tool whose annotations changed, before and after', () => {
    const named = logged.filter((l) => l.includes('purge_cache') && l.includes('readOnlyHint'));
    assert.ok(named.length >= 2, `no log line names purge_cache's annotation change:\n${logged.filter((l) => l.includes('catalog')).join('')}`);
  });
});

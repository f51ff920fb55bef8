import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RouterError } from '../../common/router-error';
import type { ChannelCall, ChannelEvents } from '../channels/backend-channel';
import { ConnectionLostError } from '../domain/backend-failures';
import type { RoundAnswer } from '../domain/input-required';
import { MODERN_FAILURES, ModernSession, type ModernWire, type WireAnswer } from './modern-session';

const discovered = (result: unknown): WireAnswer => ({ status: 200, message: { jsonrpc: '2.0', id: 'c1', result } });
const MODERN = discovered({ supportedVersions: ['2026-07-28'], capabilities: { tools: { listChanged: true } } });
const CALL: ChannelCall = { tool: 'forecast', arguments: { city: 'Oslo' }, timeoutMs: 5_000 };

/** A wire scripted answer by answer, recording what the session asked of it. */
function wire(answers: { requests?: WireAnswer[]; rounds?: (RoundAnswer | Error)[] } = {}) {
  const seen = { requests: [] as string[], rounds: [] as (string | undefined)[], listens: 0, reported: [] as unknown[] };
  const requests = [...(answers.requests ?? [])];
  const rounds = [...(answers.rounds ?? [])];
  const fake: ModernWire = {
    request: (method) => {
      seen.requests.push(method);
      const next = requests.shift();
      return next ? Promise.resolve(next) : Promise.reject(new Error('no more answers'));
    },
    callRound: (_call, _deadline, requestState) => {
      seen.rounds.push(requestState);
      const next = rounds.shift();
      if (next === undefined) return Promise.reject(new Error('no more rounds'));
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
    listen: () => void seen.listens++,
    listening: () => false,
    report: (err) => void seen.reported.push(err),
  };
  return { fake, seen };
}

function events(): ChannelEvents & { stale: number } {
  const recorded = {
    stale: 0,
    onClose: () => undefined,
    onLost: () => undefined,
    onSuspect: () => undefined,
    onListChanged: () => undefined,
    onStale: () => void recorded.stale++,
  };
  return recorded;
}

test('discovery of a modern server connects, and opens the subscription it announces', async () => {
  const { fake, seen } = wire({ requests: [MODERN] });
  const session = new ModernSession('wx', fake, events());
  session.accept(await session.discover(1_000));
  assert.deepEqual(seen.requests, ['server/discover']);
  assert.equal(seen.listens, 1);
});

test('connect fails with the one message of each verdict that is not modern', async () => {
  const legacy = new ModernSession(
    'wx',
    wire({ requests: [{ status: 400, message: { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Server not initialized' } } }] }).fake,
    events(),
  );
  assert.throws(() => legacy.accept({ era: 'legacy' }), { message: MODERN_FAILURES.answeredAsLegacy });
  assert.deepEqual(await legacy.discover(1_000), { era: 'legacy' });
  assert.throws(() => legacy.accept({ era: 'none', reason: 'backend lists 2027-01-01' }), { message: 'backend lists 2027-01-01' });
  assert.equal(MODERN_FAILURES.answeredAsLegacy, 'backend does not speak MCP 2026-07-28 (it answered discovery as a 2025 server); set era: auto or legacy');
  assert.equal(
    MODERN_FAILURES.silentOnDiscovery(15_000),
    'backend does not speak MCP 2026-07-28 (no answer to server/discover within 15000 ms); set era: auto or legacy',
  );
});

test('ping is a discovery that must still answer as a 2026-07-28 server', async () => {
  const session = new ModernSession('wx', wire({ requests: [MODERN, discovered({ supportedVersions: ['2025-11-25'] })] }).fake, events());
  await session.ping(1_000);
  await assert.rejects(session.ping(1_000), { message: 'backend no longer answers discovery as a 2026-07-28 server' });
});

test('a call is retried with the backend state while it sheds load, and answers once it completes', async () => {
  const done = { content: [{ type: 'text' as const, text: 'sunny' }] };
  const { fake, seen } = wire({ rounds: [{ kind: 'input_required', requestState: 's1', inputMethods: [] }, done] });
  const session = new ModernSession('wx', fake, events());
  assert.deepEqual(await session.call(CALL), done);
  assert.deepEqual(seen.rounds, [undefined, 's1']);
});

test('a failed call is reported to the wire (it may mean the backend is gone) and rejects as a RouterError', async () => {
  const { fake, seen } = wire({ rounds: [new ConnectionLostError('backend wx is unreachable (ECONNREFUSED)')] });
  const session = new ModernSession('wx', fake, events());
  await assert.rejects(session.call(CALL), (err) => err instanceof RouterError && err.code === 'backend_failed');
  assert.equal(seen.reported.length, 1);
});

test('a closed session sends nothing more and reports nothing', async () => {
  const { fake, seen } = wire({ rounds: [{ content: [] }] });
  const session = new ModernSession('wx', fake, events());
  session.close();
  await assert.rejects(
    session.call(CALL),
    (err) => err instanceof RouterError && err.code === 'backend_unavailable' && err.message === 'backend wx is not connected',
  );
  assert.deepEqual(seen.rounds, []);
  assert.deepEqual(seen.reported, []);
});

test('a listing reads every page; a failed page is reported; listing again is asked only while the session is open', async () => {
  const page = {
    status: 200,
    message: { jsonrpc: '2.0', id: 'c2', result: { tools: [{ name: 'forecast', inputSchema: { type: 'object' } }], ttlMs: 60_000 } },
  };
  const recorded = events();
  const { fake, seen } = wire({ requests: [page] });
  const session = new ModernSession('wx', fake, recorded);
  assert.deepEqual(
    (await session.listTools(() => 1_000)).map((t) => t.name),
    ['forecast'],
  );
  await assert.rejects(
    session.listTools(() => 1_000),
    /no more answers/,
  );
  assert.equal(seen.reported.length, 1);
  session.listAgain();
  session.end();
  session.listAgain();
  assert.equal(recorded.stale, 1);
});

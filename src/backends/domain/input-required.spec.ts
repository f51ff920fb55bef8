import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RouterError } from '../../common/router-error';
import type { BackendToolResult } from '../backends.types';
import { callInRounds, type InputRequired, readInputRequired, type RoundAnswer, type RoundsOptions } from './input-required';

const done: BackendToolResult = { content: [{ type: 'text', text: 'done' }] };
const busy = (requestState: string): InputRequired => ({ kind: 'input_required', requestState, inputMethods: [] });

/** A backend scripted answer by answer; it records the state each round carried. */
function scripted(answers: RoundAnswer[]): { send: (state: string | undefined) => Promise<RoundAnswer>; sent: (string | undefined)[] } {
  const sent: (string | undefined)[] = [];
  return {
    sent,
    send: (state) => {
      sent.push(state);
      const next = answers.shift();
      return next ? Promise.resolve(next) : Promise.reject(new Error('no more answers'));
    },
  };
}

/** A clock that moves only when the loop pauses. */
function rounds(remainingMs = 10_000, over: Partial<RoundsOptions> = {}): RoundsOptions & { paused: number[] } {
  let left = remainingMs;
  const paused: number[] = [];
  return {
    backend: 'wx',
    timeoutMs: 5_000,
    maxRounds: 4,
    pauseMs: 250,
    remainingMs: () => left,
    pause: (ms) => {
      paused.push(ms);
      left -= ms;
      return Promise.resolve();
    },
    paused,
    ...over,
  };
}

async function failure(promise: Promise<unknown>): Promise<[string, string]> {
  const err = await promise.then(
    () => assert.fail('resolved'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof RouterError, String(err));
  return [err.code, err.message];
}

test('readInputRequired keeps the state and the input methods, never their params', () => {
  assert.deepEqual(readInputRequired({ resultType: 'input_required', requestState: 's' }), { kind: 'input_required', requestState: 's', inputMethods: [] });
  const asked = readInputRequired({
    resultType: 'input_required',
    inputRequests: {
      b: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'secret=hunter2' } }] } },
      a: { method: 'elicitation/create', params: { message: 'secret=hunter2' } },
      c: { method: 'elicitation/create', params: {} },
      d: { method: 'x-evil: secret=hunter2' },
    },
  });
  assert.deepEqual(asked, { kind: 'input_required', inputMethods: ['an unknown request', 'elicitation/create', 'sampling/createMessage'] });
  assert.ok(!JSON.stringify(asked).includes('hunter2'));
});

test('readInputRequired refuses what the schema forbids, and what is not input_required', () => {
  for (const bad of [
    { resultType: 'input_required' },
    { resultType: 'input_required', inputRequests: {} },
    { resultType: 'input_required', requestState: 42 },
    { resultType: 'input_required', requestState: 's', inputRequests: [] },
    { resultType: 'complete', requestState: 's' },
    { content: [] },
    null,
    'input_required',
  ]) {
    assert.equal(readInputRequired(bad), undefined, JSON.stringify(bad));
  }
  // An empty map with a state is the load-shedding case (the v2 SDK reads it so too).
  assert.deepEqual(readInputRequired({ resultType: 'input_required', requestState: 's', inputRequests: {} })?.inputMethods, []);
});

test('a first answer that is the result is returned after one round, with no state sent and no pause', async () => {
  const backend = scripted([done]);
  const o = rounds();
  assert.deepEqual(await callInRounds(backend.send, o), done);
  assert.deepEqual(backend.sent, [undefined]);
  assert.deepEqual(o.paused, []);
});

test('a load-shedding answer is retried with its state echoed exactly, after a pause, until the result', async () => {
  const state = 'AEAD:\u00e9\n {"x":1} ';
  const backend = scripted([busy(state), busy('second'), done]);
  const o = rounds();
  assert.deepEqual(await callInRounds(backend.send, o), done);
  assert.deepEqual(backend.sent, [undefined, state, 'second']);
  assert.deepEqual(o.paused, [250, 250]);
});

test('rounds run out after maxRounds requests in all', async () => {
  const backend = scripted([busy('1'), busy('2'), busy('3'), busy('4'), done]);
  assert.deepEqual(await failure(callInRounds(backend.send, rounds())), ['backend_failed', 'backend wx still asked for a retry after 4 rounds']);
  assert.equal(backend.sent.length, 4);
});

test('inputRequests fail the call at once, naming the methods', async () => {
  const backend = scripted([{ kind: 'input_required', requestState: 's', inputMethods: ['elicitation/create'] }, done]);
  assert.deepEqual(await failure(callInRounds(backend.send, rounds())), [
    'backend_failed',
    'backend wx asked for input the router cannot give (elicitation/create); the router declares no elicitation, sampling or roots support',
  ]);
  assert.equal(backend.sent.length, 1);
});

test('a deadline that would pass before the next round fails the call as a timeout of the whole call', async () => {
  const backend = scripted([busy('1'), busy('2'), done]);
  const o = rounds(400);
  assert.deepEqual(await failure(callInRounds(backend.send, o)), [
    'backend_timeout',
    'backend wx did not complete within 5000 ms (it asked for a retry 2 times)',
  ]);
  assert.deepEqual(backend.sent, [undefined, '1']);
  const once = scripted([busy('1'), done]);
  assert.deepEqual(await failure(callInRounds(once.send, rounds(100))), [
    'backend_timeout',
    'backend wx did not complete within 5000 ms (it asked for a retry 1 time)',
  ]);
});

test("a round's own failure is the call's failure", async () => {
  const err = new RouterError('backend_timeout', 'backend wx did not answer within 5000 ms');
  let n = 0;
  const send = (): Promise<RoundAnswer> => (n++ === 0 ? Promise.resolve(busy('1')) : Promise.reject(err));
  await assert.rejects(callInRounds(send, rounds()), (e) => e === err);
});

test('each round answered input_required is told, numbered from 1, and the final answer is not', async () => {
  const backend = scripted([busy('s1'), busy('s2'), done]);
  const told: number[] = [];
  assert.deepEqual(await callInRounds(backend.send, rounds(10_000, { onInputRequired: (round) => told.push(round) })), done);
  assert.deepEqual(told, [1, 2]);
});

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { type AnswerReader, RequestTracker } from './request-tracker';

/** A tracker whose hooks are recorded. */
function tracker() {
  const cancelled: string[] = [];
  const abandoned: string[] = [];
  const requests = new RequestTracker<string>({
    idPrefix: 'x',
    timedOut: (timeoutMs) => new Error(`no answer within ${timeoutMs} ms`),
    cancel: (id, context) => cancelled.push(`${id}:${context}`),
    abandon: (context) => abandoned.push(context),
  });
  return { requests, cancelled, abandoned };
}

/** Reads the answer's `result`; an answer with `error` fails; in a stream, other ids are skipped. */
const readResult: AnswerReader<unknown> = (message, id, final) => {
  const { id: answered, result, error } = message as { id?: unknown; result?: unknown; error?: unknown };
  if (!final && answered !== id) return undefined;
  return error !== undefined ? new Error('failed') : result;
};

test('ids are the prefix and a sequence', () => {
  const { requests } = tracker();
  assert.deepEqual([requests.nextId(), requests.nextId()], ['x1', 'x2']);
});

test('on a shared pipe an answer is routed by its id; anything else is passed on', async () => {
  const { requests } = tracker();
  const id = requests.nextId();
  const answer = requests.track(id, 1_000, 1_000, readResult, 'ctx');
  assert.equal(requests.route({ jsonrpc: '2.0', method: 'notifications/progress' }), false);
  assert.equal(requests.route({ jsonrpc: '2.0', id: 7, result: 'the SDK client’s' }), false);
  assert.equal(requests.route({ jsonrpc: '2.0', id: 'x99', result: 'nobody’s' }), false);
  assert.equal(requests.waits(id), true);
  assert.equal(requests.route({ jsonrpc: '2.0', id, result: 'mine' }), true);
  assert.equal(await answer, 'mine');
  assert.equal(requests.waits(id), false);
  assert.equal(requests.route({ jsonrpc: '2.0', id, result: 'again' }), false, 'a second answer is not ours any more');
});

test("an answer the reader turns into an Error rejects, and the request's transport hold is dropped", async () => {
  const { requests, abandoned, cancelled } = tracker();
  const id = requests.nextId();
  const answer = requests.track(id, 1_000, 1_000, readResult, 'post1');
  requests.route({ jsonrpc: '2.0', id, error: { code: -1 } });
  await assert.rejects(answer, /failed/);
  assert.deepEqual(abandoned, ['post1']);
  assert.deepEqual(cancelled, []);
});

test('past its deadline a request rejects with timedOut, is abandoned and cancelled; a late answer is not claimed', async () => {
  const { requests, abandoned, cancelled } = tracker();
  const id = requests.nextId();
  await assert.rejects(requests.track(id, 20, 5_000, readResult, 'post1'), /no answer within 5000 ms/);
  assert.deepEqual(abandoned, ['post1']);
  assert.deepEqual(cancelled, [`${id}:post1`]);
  assert.equal(requests.route({ jsonrpc: '2.0', id, result: 'late' }), false);
});

test('on its own channel a stream is read past other messages; a final message is the answer whatever it holds', async () => {
  const { requests } = tracker();
  const streamed = requests.nextId();
  const first = requests.track(streamed, 1_000, 1_000, readResult, 'a');
  assert.equal(requests.deliver(streamed, { id: 'other', result: 'not mine' }, false, 200), false);
  assert.equal(requests.deliver(streamed, { id: streamed, result: 'mine' }, false, 200), true);
  assert.equal(await first, 'mine');
  const whole = requests.nextId();
  const second = requests.track(whole, 1_000, 1_000, readResult, 'b');
  assert.equal(requests.deliver(whole, { id: 'other', result: 'the body' }, true, 200), true);
  assert.equal(await second, 'the body');
  assert.equal(requests.deliver('x404', { result: 1 }, true, 200), true, 'nobody waits: nothing more is wanted');
});

test('a held request keeps its deadline after its answer until released: past it, its hold is dropped, not rejected', async () => {
  const { requests, abandoned, cancelled } = tracker();
  const held = requests.nextId();
  const answer = requests.track(held, 30, 30, readResult, 'stream', true);
  requests.deliver(held, { id: held, result: 'early' }, false, 200);
  assert.equal(await answer, 'early');
  await sleep(60);
  assert.deepEqual(abandoned, ['stream']);
  assert.deepEqual(cancelled, []);
  const released = requests.nextId();
  const other = requests.track(released, 30, 30, readResult, 'drained', true);
  requests.deliver(released, { id: released, result: 'ok' }, true, 200);
  requests.release(released);
  assert.equal(await other, 'ok');
  await sleep(60);
  assert.deepEqual(abandoned, ['stream'], 'a released request is forgotten with its deadline');
});

test('fail and failAll reject what still waits, once', async () => {
  const { requests } = tracker();
  const one = requests.nextId();
  const two = requests.nextId();
  const first = requests.track(one, 1_000, 1_000, readResult, 'a');
  const second = requests.track(two, 1_000, 1_000, readResult, 'b');
  requests.fail(one, new Error('refused'));
  requests.fail(one, new Error('again'));
  requests.failAll(new Error('pipe gone'));
  await assert.rejects(first, /refused/);
  await assert.rejects(second, /pipe gone/);
});

test('the reader sees the HTTP status it came with (200 on a pipe)', async () => {
  const { requests } = tracker();
  const statusOf: AnswerReader<number> = (_message, _id, _final, status) => status;
  const onPipe = requests.nextId();
  const piped = requests.track(onPipe, 1_000, 1_000, statusOf, 'a');
  requests.route({ id: onPipe });
  assert.equal(await piped, 200);
  const posted = requests.nextId();
  const answer = requests.track(posted, 1_000, 1_000, statusOf, 'b');
  requests.deliver(posted, { id: posted }, true, 405);
  assert.equal(await answer, 405);
});

test('each request is given up at its own deadline, whichever order they were tracked in', async () => {
  const { requests, cancelled } = tracker();
  const late = requests.nextId();
  const early = requests.nextId();
  const answered = requests.nextId();
  const lateAnswer = requests.track(late, 2_000, 2_000, readResult, 'late');
  const answeredAnswer = requests.track(answered, 40, 40, readResult, 'answered');
  const earlyAnswer = requests.track(early, 20, 20, readResult, 'early');
  requests.route({ jsonrpc: '2.0', id: answered, result: 'in time' });
  assert.equal(await answeredAnswer, 'in time');
  await assert.rejects(earlyAnswer, /no answer within 20 ms/);
  assert.deepEqual(cancelled, [`${early}:early`]);
  assert.equal(requests.waits(late), true, 'a later deadline is still ahead');
  requests.route({ jsonrpc: '2.0', id: late, result: 'late but in time' });
  assert.equal(await lateAnswer, 'late but in time');
  await sleep(60);
  assert.deepEqual(cancelled, [`${early}:early`]);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LifecycleService } from './lifecycle.service';

const lifecycle = (drainTimeoutMs = 1000) => new LifecycleService({ drainTimeoutMs });

test('counts requests in and out; a release counts once', () => {
  const service = lifecycle();
  const a = service.tryEnter();
  const b = service.tryEnter();
  assert.equal(service.inFlight, 2);
  a?.();
  a?.();
  assert.equal(service.inFlight, 1);
  b?.();
  assert.equal(service.inFlight, 0);
});

test('once draining, new requests are refused and readiness can see it', () => {
  const service = lifecycle();
  assert.equal(service.draining, false);
  service.startDraining();
  service.startDraining();
  assert.equal(service.draining, true);
  assert.equal(service.tryEnter(), undefined);
  assert.equal(service.inFlight, 0);
});

test('waitForIdle resolves when the last request leaves', async () => {
  const service = lifecycle();
  const release = service.tryEnter()!;
  const idle = service.waitForIdle(5_000);
  setTimeout(release, 20);
  assert.equal(await idle, true);
});

test('waitForIdle gives up at the deadline while work is still in flight', async () => {
  const service = lifecycle();
  service.tryEnter();
  // Order, not a stopwatch: a shorter timer started first has fired before the wait gives up.
  let earlier = false;
  setTimeout(() => (earlier = true), 40);
  assert.equal(await service.waitForIdle(50), false);
  assert.equal(earlier, true, 'gave up before its deadline');
  assert.equal(service.inFlight, 1);
});

test('drain() starts draining and waits up to the configured deadline', async () => {
  const idle = lifecycle(5_000);
  assert.deepEqual(await idle.drain(), { idle: true, inFlight: 0 });
  assert.equal(idle.stopSignal.aborted, false, 'nothing to stop');
});

test('at the deadline drain() stops the work in flight and waits for its answers', async () => {
  const busy = lifecycle(30);
  const release = busy.tryEnter()!;
  // A request whose call answers as soon as it is stopped.
  busy.stopSignal.addEventListener('abort', () => setTimeout(release, 10));
  assert.deepEqual(await busy.drain(), { idle: false, inFlight: 0 });
  assert.equal(busy.draining, true);
  assert.equal(busy.stopSignal.aborted, true);
});

test('untilStopped: the outcome of the work, or the stopped value at the drain deadline', async () => {
  const service = lifecycle(30);
  assert.equal(await service.untilStopped(Promise.resolve('done'), () => 'stopped'), 'done');
  await assert.rejects(
    service.untilStopped(Promise.reject(new Error('failed')), () => 'stopped'),
    /failed/,
  );
  const release = service.tryEnter()!;
  const hung = service.untilStopped(new Promise<string>(() => undefined), () => 'stopped');
  void hung.then(release);
  assert.deepEqual(await service.drain(), { idle: false, inFlight: 0 });
  assert.equal(await hung, 'stopped');
  assert.equal(await service.untilStopped(new Promise<string>(() => undefined), () => 'stopped'), 'stopped', 'after the deadline at once');
});

test('settleUntilStopped: what the work comes to, read in one step, or the stopped value at the drain deadline', async () => {
  const service = lifecycle(30);
  const read = [(n: number) => `value ${n}`, (err: unknown) => `error ${(err as Error).message}`] as const;
  assert.equal(await service.settleUntilStopped(Promise.resolve(1), ...read, () => 'stopped'), 'value 1');
  assert.equal(await service.settleUntilStopped(Promise.reject(new Error('lost')), ...read, () => 'stopped'), 'error lost');
  const thrown = () => {
    throw new Error('reader failed');
  };
  await assert.rejects(
    service.settleUntilStopped(Promise.resolve(1), thrown, thrown, () => 'stopped'),
    /reader failed/,
  );
  // Past the deadline the work's reading still runs when it ends (a metric it records is true), but the answer was the stopped one.
  const release = service.tryEnter()!;
  let finish: (n: number) => void = () => undefined;
  const late: string[] = [];
  const hung = service.settleUntilStopped(
    new Promise<number>((resolve) => (finish = resolve)),
    (n) => (late.push(`read ${n}`), 'late'),
    read[1],
    () => 'stopped',
  );
  void hung.then(release);
  assert.deepEqual(await service.drain(), { idle: false, inFlight: 0 });
  assert.equal(await hung, 'stopped');
  finish(2);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(late, ['read 2']);
});

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { isAlive, livingInGroup, waitFor } from '../../../test/support/backend-processes';
import { RESPONSE_TOO_LARGE_CODE } from '../domain/backend-failures';
import type { JsonRpcId } from '../domain/line-framer';
import { stringIdOf } from '../domain/wire';
import { type OversizedAnswer, StdioProcessTransport, type StdioProcessOptions } from './stdio-process.transport';

const FIXTURE = join(__dirname, '../../../test/support/backend-fixture-server.js');
const BASE_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

/** A started transport and every line it delivered, over-long ones as what was reported of them. */
async function started(options: Partial<StdioProcessOptions> = {}) {
  const transport = new StdioProcessTransport({ name: 'fixture', command: process.execPath, args: [FIXTURE], env: BASE_ENV, ...options });
  const messages: unknown[] = [];
  const oversized: { id: JsonRpcId; error: OversizedAnswer }[] = [];
  let closed = 0;
  transport.onmessage = (message) => {
    messages.push(message);
    return true;
  };
  transport.onoversized = (id, error) => {
    oversized.push({ id, error });
    return true;
  };
  transport.onclose = () => closed++;
  await transport.start();
  /** Sends one `tools/call` with `id` and waits for the line that carries that id. */
  const call = async (id: string, name: string, args: Record<string, unknown> = {}) => {
    await transport.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
    await waitFor(() => messages.some((m) => stringIdOf(m) === id), 5_000, `the answer to ${id}`);
    return messages.find((m) => stringIdOf(m) === id);
  };
  return { transport, messages, oversized, closed: () => closed, call };
}

function textOf(message: unknown): string {
  const { result } = message as { result: { content: { text: string }[] } };
  return result.content[0].text;
}

test('it moves messages: a line out, the parsed line back, matched by nobody here', async () => {
  const { transport, call } = await started();
  try {
    assert.equal(textOf(await call('x1', 'small')), 'ok');
  } finally {
    await transport.close();
  }
});

test('a line over the cap is reported with the id its edges name, and the stream stays in step', async () => {
  const { transport, oversized, call } = await started({ maxLineBytes: 64 * 1024 });
  try {
    await transport.send({ jsonrpc: '2.0', id: 'big1', method: 'tools/call', params: { name: 'big', arguments: { bytes: 1024 * 1024 } } });
    assert.equal(textOf(await call('after', 'small')), 'ok');
    assert.equal(oversized.length, 1);
    assert.equal(oversized[0].id, 'big1');
    assert.equal(oversized[0].error.code, RESPONSE_TOO_LARGE_CODE);
    assert.deepEqual(oversized[0].error.data, { reason: 'response_too_large', bytes: oversized[0].error.data.bytes, limitBytes: 64 * 1024 });
    assert.ok(oversized[0].error.data.bytes > 1024 * 1024);
    assert.equal(textOf(await call('fits', 'big', { bytes: 1000 })).length, 1000);
  } finally {
    await transport.close();
  }
});

test('lines written in one turn reach the child in order, a long one among them too, and each write hears it went out', async () => {
  const { transport, messages } = await started();
  try {
    const ids = Array.from({ length: 25 }, (_, i) => `t${i}`);
    const outcomes: unknown[] = [];
    const sent: Promise<void>[] = [];
    ids.forEach((id, i) => {
      // Past the pipe's 64 KiB: the turn's lines so far go at once, the rest after them.
      const args = i === 12 ? { pad: 'y'.repeat(100 * 1024) } : {};
      const message = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'small', arguments: args } };
      // The router's own requests (`write`) and the SDK client's messages (`send`) share one order.
      if (i % 2 === 0) transport.write(message, (err) => outcomes.push(err ?? 'written'));
      else sent.push(transport.send(message));
    });
    await Promise.all(sent);
    await waitFor(() => messages.length === ids.length, 30_000, 'every answer');
    // The fixture answers each line as it reads it: the answers' order is the lines' order.
    assert.deepEqual(messages.map(stringIdOf), ids);
    assert.deepEqual(
      outcomes,
      Array.from({ length: 13 }, () => 'written'),
    );
  } finally {
    await transport.close();
  }
});

test('writes of the turn in which the child is killed each hear once how they ended; later ones say Not connected', async () => {
  const { transport, closed } = await started();
  const outcomes: string[] = [];
  for (let i = 0; i < 5; i++) {
    transport.write({ jsonrpc: '2.0', id: `k${i}`, method: 'tools/call', params: { name: 'sleep', arguments: { ms: 60_000 } } }, (err) =>
      outcomes.push(err ? 'failed' : 'written'),
    );
  }
  transport.killNow();
  await waitFor(() => closed() === 1 && outcomes.length === 5, 60_000, 'the close and every write heard');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(outcomes.length, 5);
  assert.throws(() => transport.write({ jsonrpc: '2.0', id: 'late', method: 'ping' }, () => undefined), /Not connected/);
});

test('lines written just before close still go down the pipe before its input ends', async () => {
  const { transport } = await started();
  const outcomes: unknown[] = [];
  for (let i = 0; i < 3; i++) transport.write({ jsonrpc: '2.0', method: 'notifications/progress', params: { i } }, (err) => outcomes.push(err ?? 'written'));
  await transport.close();
  await waitFor(() => outcomes.length === 3, 60_000, 'every write heard');
  assert.deepEqual(outcomes, ['written', 'written', 'written']);
});

test('the child gets exactly the environment it is given', async () => {
  const { transport, call } = await started({ env: { ...BASE_ENV, FIXTURE_ONLY: '1' } });
  try {
    assert.deepEqual(JSON.parse(textOf(await call('e1', 'env'))), ['FIXTURE_ONLY', 'PATH']);
  } finally {
    await transport.close();
  }
});

test('close ends the whole process group and resolves once the child has exited', async () => {
  const { transport, call } = await started();
  const grandchild = Number(textOf(await call('g1', 'grandchild')));
  const pid = transport.pid!;
  assert.ok(isAlive(grandchild));
  await transport.close();
  assert.equal(isAlive(pid), false);
  await waitFor(() => livingInGroup(pid).length === 0, 60_000, 'process group gone');
});

test('a child that dies is reported at once, with its exit and last stderr line, and takes its group along', async () => {
  const { transport, call, closed } = await started();
  const grandchild = Number(textOf(await call('g1', 'grandchild')));
  process.kill(transport.pid!, 'SIGKILL'); // the leader only: the transport sweeps the rest
  await waitFor(() => closed() === 1, 60_000, 'the close');
  assert.match(transport.describeExit(), /killed by SIGKILL; stderr: backend fixture ready/);
  await waitFor(() => !isAlive(grandchild), 60_000, 'grandchild gone');
  await transport.close(); // idempotent after exit
  assert.equal(closed(), 1);
});

test('a command that cannot start fails the start instead of hanging, and says why', async () => {
  const transport = new StdioProcessTransport({ name: 'missing', command: '/nonexistent/server', args: [], env: BASE_ENV });
  await assert.rejects(transport.start(), { code: 'ENOENT' });
  assert.equal(transport.spawnFailed, true);
  assert.equal(transport.describeExit(), 'cannot run command "/nonexistent/server": ENOENT (no such file, or not on PATH)');
  await transport.close();
});

test('a send after the child is gone says Not connected', async () => {
  const { transport } = await started();
  await transport.close();
  await assert.rejects(transport.send({ jsonrpc: '2.0', id: 99, method: 'ping' }), /Not connected/);
});

test('a handed-over transport starts without a second child; one that died meanwhile says how', async () => {
  const { transport, call } = await started();
  const pid = transport.pid;
  transport.handOver();
  await transport.start();
  assert.equal(transport.pid, pid);
  assert.equal(textOf(await call('h1', 'small')), 'ok');
  await transport.close();
  transport.handOver();
  await assert.rejects(transport.start(), /process/);
});

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { isAlive, livingInGroup, waitFor } from '../../../test/support/backend-processes';
import { RESPONSE_TOO_LARGE_CODE } from '../domain/backend-failures';
import { StdioProcessTransport, type StdioProcessOptions } from './stdio-process.transport';

const FIXTURE = join(__dirname, '../../../test/support/backend-fixture-server.js');
const BASE_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

async function connect(options: Partial<StdioProcessOptions> = {}) {
  const transport = new StdioProcessTransport({ name: 'fixture', command: process.execPath, args: [FIXTURE], env: BASE_ENV, ...options });
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(transport);
  return { transport, client };
}

function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = (result as { content: { type: string; text?: string }[] }).content;
  return content[0]?.text ?? '';
}

test('a response over the line cap fails only its own call', async () => {
  const { client, transport } = await connect({ maxLineBytes: 64 * 1024 });
  try {
    const [big, slow] = await Promise.allSettled([
      client.callTool({ name: 'big', arguments: { bytes: 1024 * 1024 } }),
      client.callTool({ name: 'sleep', arguments: { ms: 300 } }),
    ]);
    assert.equal(big.status, 'rejected');
    assert.ok(big.status === 'rejected' && big.reason instanceof McpError);
    assert.equal((big as PromiseRejectedResult).reason.code, RESPONSE_TOO_LARGE_CODE);
    assert.equal(slow.status, 'fulfilled');
    assert.equal(textOf((slow as PromiseFulfilledResult<Awaited<ReturnType<Client['callTool']>>>).value), 'slept');
    // The stream is still in step after the dropped line.
    assert.equal(textOf(await client.callTool({ name: 'small', arguments: {} })), 'ok');
    assert.equal(textOf(await client.callTool({ name: 'big', arguments: { bytes: 1000 } })).length, 1000);
  } finally {
    await transport.close();
  }
});

test('the child gets exactly the environment it is given', async () => {
  const { client, transport } = await connect({ env: { ...BASE_ENV, FIXTURE_ONLY: '1' } });
  try {
    const keys = JSON.parse(textOf(await client.callTool({ name: 'env', arguments: {} }))) as string[];
    assert.deepEqual(keys, ['FIXTURE_ONLY', 'PATH']);
  } finally {
    await transport.close();
  }
});

test('close ends the whole process group and resolves once the child has exited', async () => {
  const { client, transport } = await connect();
  const grandchild = Number(textOf(await client.callTool({ name: 'grandchild', arguments: {} })));
  const pid = transport.pid!;
  assert.ok(isAlive(grandchild));
  await transport.close();
  assert.equal(isAlive(pid), false);
  await waitFor(() => livingInGroup(pid).length === 0, 500, 'process group gone');
});

test('a child that dies fails the calls in flight at once and takes its group along', async () => {
  const { client, transport } = await connect();
  let closed = false;
  client.onclose = () => (closed = true);
  const grandchild = Number(textOf(await client.callTool({ name: 'grandchild', arguments: {} })));
  const started = Date.now();
  const inFlight = client.callTool({ name: 'sleep', arguments: { ms: 10_000 } });
  await sleep(50);
  process.kill(transport.pid!, 'SIGKILL'); // the leader only: the transport sweeps the rest
  await assert.rejects(inFlight, (err: unknown) => err instanceof McpError && err.code === ErrorCode.ConnectionClosed);
  assert.ok(Date.now() - started < 2000);
  assert.ok(closed);
  assert.match(transport.describeExit(), /killed by SIGKILL; stderr: backend fixture ready/);
  await waitFor(() => !isAlive(grandchild), 1000, 'grandchild gone');
  await transport.close(); // idempotent after exit
});

test('a command that cannot start fails the connect instead of hanging', async () => {
  const transport = new StdioProcessTransport({ name: 'missing', command: '/nonexistent/server', args: [], env: BASE_ENV });
  const client = new Client({ name: 'test', version: '1.0.0' });
  await assert.rejects(client.connect(transport), { code: 'ENOENT' });
  await transport.close();
});

test('a send after the child is gone says Not connected', async () => {
  const { transport } = await connect();
  await transport.close();
  await assert.rejects(transport.send({ jsonrpc: '2.0', id: 99, method: 'ping' }), /Not connected/);
});

/** The text of a direct request's raw answer. */
function directText(answer: { message: unknown }): string {
  return (answer.message as { result: { content: { text: string }[] } }).result.content[0].text;
}

test('direct requests get their own answers, beside SDK calls; an oversized answer fails only its own', async () => {
  const { client, transport } = await connect({ maxLineBytes: 64 * 1024 });
  try {
    const [big, slow, sdk] = await Promise.allSettled([
      transport.request('tools/call', { name: 'big', arguments: { bytes: 1024 * 1024 } }, 5000),
      transport.request('tools/call', { name: 'sleep', arguments: { ms: 200 } }, 5000),
      client.callTool({ name: 'small', arguments: {} }),
    ]);
    assert.ok(big.status === 'rejected' && big.reason instanceof McpError && big.reason.code === RESPONSE_TOO_LARGE_CODE);
    assert.ok(slow.status === 'fulfilled');
    assert.equal(directText(slow.value), 'slept');
    assert.match(slow.value.id, /^d\d+$/, 'string ids never collide with the SDK client numeric ids');
    assert.ok(sdk.status === 'fulfilled');
    assert.equal(textOf(sdk.value), 'ok');
  } finally {
    await transport.close();
  }
});

test('a direct request past its deadline rejects with the timeout code; one in flight when the child dies, at once', async () => {
  const { transport } = await connect();
  await assert.rejects(transport.request('tools/call', { name: 'sleep', arguments: { ms: 2000 } }, 100), (err: unknown) => err instanceof McpError && err.code === ErrorCode.RequestTimeout);
  const started = Date.now();
  const inFlight = transport.request('tools/call', { name: 'sleep', arguments: { ms: 10_000 } }, 20_000);
  await sleep(50);
  process.kill(transport.pid!, 'SIGKILL');
  await assert.rejects(inFlight, (err: unknown) => err instanceof McpError && err.code === ErrorCode.ConnectionClosed);
  assert.ok(Date.now() - started < 2000);
  await transport.close();
});

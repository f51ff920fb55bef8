import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { mcpErrorCode, RESPONSE_TOO_LARGE_CODE } from '../domain/backend-failures';
import { StdioProcessTransport, type StdioProcessOptions } from '../transports/stdio-process.transport';
import { StdioRequests } from './stdio-requests';

const FIXTURE = join(__dirname, '../../../test/support/backend-fixture-server.js');
const BASE_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

/** A pipe to the fixture with an SDK client on it, as a 2025 stdio channel has. */
async function connect(options: Partial<StdioProcessOptions> = {}) {
  const requests = new StdioRequests(new StdioProcessTransport({ name: 'fixture', command: process.execPath, args: [FIXTURE], env: BASE_ENV, ...options }));
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(requests.sdkTransport());
  return { requests, client, transport: requests.transport };
}

/** The raw answer, as the requests hand it to a reader. */
const raw = (message: unknown) => message;

function textOf(message: unknown): string {
  return (message as { result: { content: { text: string }[] } }).result.content[0].text;
}

function sdkText(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result as { content: { type: string; text?: string }[] }).content[0]?.text ?? '';
}

test("the router's requests get their own answers beside the SDK client's; an oversized answer fails only its own", async () => {
  const { client, requests, transport } = await connect({ maxLineBytes: 64 * 1024 });
  try {
    const ids: string[] = [];
    const withId = (message: unknown, id: string) => (ids.push(id), message);
    const [big, slow, sdk, sdkBig] = await Promise.allSettled([
      requests.request('tools/call', { name: 'big', arguments: { bytes: 1024 * 1024 } }, 5000, raw),
      requests.request('tools/call', { name: 'sleep', arguments: { ms: 200 } }, 5000, withId),
      client.callTool({ name: 'small', arguments: {} }),
      client.callTool({ name: 'big', arguments: { bytes: 1024 * 1024 } }),
    ]);
    assert.ok(big.status === 'rejected' && big.reason instanceof McpError && big.reason.code === RESPONSE_TOO_LARGE_CODE);
    assert.ok(slow.status === 'fulfilled');
    assert.equal(textOf(slow.value), 'slept');
    assert.match(ids[0], /^d\d+$/, 'string ids never collide with the SDK client numeric ids');
    assert.ok(sdk.status === 'fulfilled');
    assert.equal(sdkText(sdk.value), 'ok');
    assert.ok(sdkBig.status === 'rejected' && sdkBig.reason instanceof McpError && sdkBig.reason.code === RESPONSE_TOO_LARGE_CODE);
    // The stream is still in step after the dropped lines.
    assert.equal(sdkText(await client.callTool({ name: 'small', arguments: {} })), 'ok');
  } finally {
    await transport.close();
  }
});

test('a request past its deadline rejects with the timeout code; one in flight when the child dies, at once', async () => {
  const { requests, transport } = await connect();
  await assert.rejects(
    requests.request('tools/call', { name: 'sleep', arguments: { ms: 2000 } }, 100, raw),
    (err: unknown) => err instanceof McpError && mcpErrorCode(err) === ErrorCode.RequestTimeout,
  );
  // ConnectionClosed, not RequestTimeout ten minutes on: the call failed when the child died.
  const inFlight = requests.request('tools/call', { name: 'sleep', arguments: { ms: 600_000 } }, 600_000, raw);
  await sleep(50);
  process.kill(transport.pid!, 'SIGKILL');
  await assert.rejects(inFlight, (err: unknown) => err instanceof McpError && mcpErrorCode(err) === ErrorCode.ConnectionClosed);
  await transport.close();
});

test("a child that dies fails the SDK client's calls in flight too, and the client hears of the close", async () => {
  const { client, transport } = await connect();
  let closed = false;
  client.onclose = () => (closed = true);
  const inFlight = client.callTool({ name: 'sleep', arguments: { ms: 10_000 } });
  await sleep(50);
  process.kill(transport.pid!, 'SIGKILL');
  await assert.rejects(inFlight, (err: unknown) => err instanceof McpError && mcpErrorCode(err) === ErrorCode.ConnectionClosed);
  assert.ok(closed);
});

test('requests of one turn to a child that dies among them: those before are answered, each one after fails once, at once', async () => {
  const { requests, transport } = await connect();
  try {
    // Deadlines of a minute: a request left to its deadline would hold the test that long.
    const calls = Array.from({ length: 25 }, (_, i) =>
      i === 10 ? requests.request('fixture/exit', {}, 60_000, raw) : requests.request('tools/call', { name: 'small', arguments: {} }, 60_000, raw),
    );
    const settled = await Promise.allSettled(calls);
    for (const [i, outcome] of settled.entries()) {
      if (i < 10) assert.ok(outcome.status === 'fulfilled' && textOf(outcome.value) === 'ok', `request ${i} answered`);
      else assert.ok(outcome.status === 'rejected' && outcome.reason instanceof Error, `request ${i} failed`);
    }
  } finally {
    await transport.close();
  }
});

test('a request on a pipe that is gone rejects with Not connected', async () => {
  const { requests, transport } = await connect();
  await transport.close();
  await assert.rejects(requests.request('tools/call', { name: 'small', arguments: {} }, 1000, raw), /Not connected/);
});

test('a message no request claimed and that is not JSON-RPC is refused, so the transport logs it', () => {
  const requests = new StdioRequests(new StdioProcessTransport({ name: 'fixture', command: process.execPath, args: [FIXTURE], env: BASE_ENV }));
  const passed: unknown[] = [];
  requests.onmessage = (message) => passed.push(message);
  const receive = requests.transport.onmessage;
  assert.ok(receive);
  assert.equal(receive({ banner: 'hello' }), false);
  assert.equal(receive({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }), true);
  assert.equal(receive({ jsonrpc: '2.0', id: 'd99', result: {} }), true, 'a late answer to nothing waiting is passed on');
  assert.equal(passed.length, 2);
});

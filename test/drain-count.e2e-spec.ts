import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { waitFor } from './support/backend-processes';
import { FAULT_SERVER, readCounts } from './support/fault-backends';
import { rawRequest, requestText } from './support/raw-http';
import { msgOf, spawnRouter, stdioBackendYaml, type SpawnedRouter } from './support/router-process';
import { tempDir } from './support/router';

/**
 * The drain waits for the /mcp requests in flight. A request whose client has gone can never be
 * answered, so it must stop counting the moment its connection closes, however the client left:
 * otherwise every SIGTERM after such a client waits out the whole drain deadline.
 */

const routers: SpawnedRouter[] = [];
after(() => routers.forEach((r) => r.kill()));

const HEADERS = ['Content-Type: application/json', 'Accept: application/json, text/event-stream', 'Connection: keep-alive'];

function callText(id: number, name: string, args: Record<string, unknown>): string {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'invoke_read_tool', arguments: { name, server: 'held', arguments: args } },
  });
  return requestText('/mcp', [...HEADERS, `Content-Length: ${Buffer.byteLength(body)}`], body);
}

function open(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  return once(socket, 'connect').then(() => socket);
}

test('clients that leave after their body, in the middle of the answer or half-way through the body are not counted in flight: SIGTERM drains at once and exits 0', async () => {
  const dir = tempDir();
  const counts = join(dir, 'held.counts');
  const release = join(dir, 'release');
  const router = spawnRouter(['backends:', ...stdioBackendYaml('held', FAULT_SERVER, ['--name', 'held', '--count-file', counts]), ''].join('\n'), {
    // Long enough that a leaked count shows as "drain deadline passed" rather than a quick exit.
    CENTRALMCP_ROUTER_DRAIN_TIMEOUT_MS: '30000',
    // An answer of 8 MiB does not fit the sockets' buffers: the client can leave in its middle.
    CENTRALMCP_ROUTER_RESPONSE_MAX_BYTES: String(8 * 1024 * 1024),
  });
  routers.push(router);
  const port = Number(new URL(await router.listening()).port);
  await waitFor(() => router.logs.some((l) => msgOf(l) === 'backends started'), 60_000, 'backends started');

  // 1. The whole request sent, then gone while the backend still works on it.
  const afterBody = await open(port);
  afterBody.write(callText(1, 'wait_for_file', { path: release }));
  await waitFor(() => (readCounts(counts)['tools/call:wait_for_file'] ?? 0) === 1, 60_000, 'the held call reached the backend');
  afterBody.destroy();
  writeFileSync(release, '');

  // 2. Gone in the middle of a large answer: the client reads its first bytes, then closes.
  const midAnswer = await open(port);
  midAnswer.write(callText(2, 'huge', { bytes: 12 * 1024 * 1024 }));
  await once(midAnswer, 'data');
  midAnswer.destroy();

  // 3. Gone half-way through its body.
  const midBody = await open(port);
  const whole = callText(3, 'fast', {});
  midBody.write(whole.slice(0, whole.length - 10));
  // A whole call answered on another connection: by then the router has read the partial one's head.
  assert.equal((await rawRequest(port, callText(4, 'fast', {}))).status, 200);
  midBody.destroy();

  // Every call above has ended at the backend before the router is asked to stop.
  await waitFor(() => (readCounts(counts)['tools/call:huge'] ?? 0) === 1, 60_000, 'the huge call reached the backend');

  router.child.kill('SIGTERM');
  const [code] = await router.exited;
  const messages = router.logs.map(msgOf);
  assert.ok(
    !messages.includes('drain deadline passed: stopping the calls in flight'),
    `the drain waited for gone clients: ${JSON.stringify(router.logs.filter((l) => l.inFlight !== undefined))}`,
  );
  assert.ok(messages.includes('drained'));
  assert.equal(code, 0, router.other());
});

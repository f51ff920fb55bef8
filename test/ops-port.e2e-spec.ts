import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { createApp } from '../src/app.factory';
import { BackendsService } from '../src/backends/backends.service';
import { moveOpsPathsOffMainPort } from '../src/ops-port';
import { freePort } from './support/backend-servers';
import { filesBackend, tempDir, testConfig } from './support/router';

describe('health and metrics on their own port (CENTRALMCP_ROUTER_METRICS_PORT)', () => {
  let close: () => Promise<void>;
  let main = '';
  let ops = '';

  before(async () => {
    const opsPort = await freePort();
    const config = testConfig([filesBackend(tempDir())]);
    const app = await createApp({ ...config, http: { ...config.http, metricsPort: opsPort } });
    const mover = moveOpsPathsOffMainPort(app);
    await app.listen(0, '127.0.0.1');
    const server: Server = await mover.listen(opsPort, '127.0.0.1');
    await app.get(BackendsService).start();
    main = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
    ops = `http://127.0.0.1:${opsPort}`;
    close = async () => {
      server.close();
      await app.close();
    };
  });
  after(async () => close());

  test('the ops port answers /metrics and both probes; the main port does not', async () => {
    const metrics = await fetch(`${ops}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /centralmcp_router_backend_up\{backend="files"\} 1/);
    assert.equal((await fetch(`${ops}/health/live`)).status, 200);
    assert.equal((await fetch(`${ops}/health/ready`)).status, 200);
    for (const path of ['/metrics', '/health/live', '/health/ready']) assert.equal((await fetch(`${main}${path}`)).status, 404, path);
  });

  test('the ops port serves nothing else, and /mcp stays on the main port', async () => {
    assert.equal((await fetch(`${ops}/mcp`, { method: 'POST', body: '{}' })).status, 404);
    const ping = await fetch(`${main}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(ping.status, 200);
  });
});

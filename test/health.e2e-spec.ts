import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isAlive, waitFor } from './support/backend-processes';
import { freePort, httpBackend } from './support/backend-servers';
import { everythingBackend, filesBackend, memoryBackend, startRouter, tempDir, testConfig, type RunningRouter, backendState } from './support/router';

/** One probe's entry in the answer: a backend's, the catalog's or the lifecycle's. */
interface Indicator {
  status?: string;
  state?: string;
  required?: boolean;
  draining?: boolean;
  tools?: number;
}

interface Health {
  status: number;
  body: { status: string; info: Record<string, Indicator>; error: Record<string, Indicator>; details: Record<string, Indicator> };
}

describe('health probes over real backends', () => {
  let router: RunningRouter;
  let base: string;
  const get = async (path: string): Promise<Health> => {
    const res = await fetch(base + path);
    return { status: res.status, body: (await res.json()) as Health['body'] };
  };
  const stateOf = (name: string) => backendState(router, name);

  /** Polls /health/ready every 20 ms until it answers `status`; checks liveness on each round. */
  async function readyBecomes(status: number, ms: number): Promise<Health> {
    const end = Date.now() + ms;
    for (;;) {
      const ready = await get('/health/ready');
      assert.equal((await get('/health/live')).status, 200, 'liveness never depends on backends');
      if (ready.status === status) return ready;
      if (Date.now() > end) assert.fail(`/health/ready stayed ${ready.status}: ${JSON.stringify(ready.body)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  before(async () => {
    router = await startRouter(
      testConfig([
        filesBackend(tempDir()),
        memoryBackend(join(tempDir(), 'memory.jsonl')),
        everythingBackend({ required: false }),
        // Nothing listens there: an optional backend that is down from the start.
        httpBackend('offline', `http://127.0.0.1:${await freePort()}/mcp`, { required: false, timeoutMs: 2_000 }),
      ]),
    );
    base = router.url.replace(/\/mcp$/, '');
  });
  after(async () => router.close());

  test('ready with the required backends up; an optional backend that is down does not hold it back', async () => {
    const ready = await get('/health/ready');
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    assert.equal(ready.body.status, 'ok');
    for (const name of ['files', 'memory', 'everything']) assert.equal(ready.body.details[`backend:${name}`].state, 'up', name);
    assert.deepEqual(
      { state: ready.body.details['backend:offline'].state, required: ready.body.details['backend:offline'].required },
      { state: 'down', required: false },
    );
    assert.equal(ready.body.details.lifecycle.draining, false);
    assert.ok((ready.body.details.catalog.tools ?? 0) > 0);
    const live = await get('/health/live');
    assert.deepEqual(live, { status: 200, body: { status: 'ok', info: {}, error: {}, details: {} } });
  });

  test('a required backend killed: ready is 503 naming it, then 200 again once it restarts', async () => {
    const before = stateOf('files');
    assert.ok(before.pid !== undefined);
    process.kill(-before.pid, 'SIGKILL');
    const down = await readyBecomes(503, 60_000);
    assert.equal(down.body.status, 'error');
    assert.deepEqual(Object.keys(down.body.error), ['backend:files']);
    assert.notEqual(down.body.error['backend:files'].state, 'up');
    assert.equal(down.body.error['backend:files'].required, true);
    assert.equal(down.body.info['backend:memory'].status, 'up');

    const up = await readyBecomes(200, 60_000);
    assert.equal(up.body.details['backend:files'].state, 'up');
    const after = stateOf('files');
    assert.ok(after.restarts >= 1 && after.pid !== before.pid && !isAlive(before.pid));
    const metrics = await (await fetch(`${base}/metrics`)).text();
    assert.match(metrics, /^centralmcp_router_backend_restarts_total\{backend="files"\} [1-9]\d*$/m);
  });

  test('an optional backend killed keeps the router ready', async () => {
    const pid = stateOf('everything').pid;
    assert.ok(pid !== undefined);
    process.kill(-pid, 'SIGKILL');
    await waitFor(() => stateOf('everything').status !== 'up', 60_000, 'everything down');
    const ready = await get('/health/ready');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.details['backend:everything'].status, 'up', 'readiness verdict');
    assert.notEqual(ready.body.details['backend:everything'].state, 'up', 'connection state');
  });
});

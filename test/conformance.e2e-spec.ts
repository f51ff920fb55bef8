import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { ROOT, filesBackend, startRouter, tempDir, testConfig, type RunningRouter } from './support/router';

const run = promisify(execFile);
const CONFORMANCE = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** The official MCP conformance suite (0.1.13, the last for Node 20), run against the real router. */
describe('official MCP conformance scenarios', () => {
  let router: RunningRouter;
  before(async () => {
    router = await startRouter(testConfig([filesBackend(tempDir())]));
  });
  after(async () => router.close());

  for (const scenario of ['server-initialize', 'ping', 'tools-list', 'tools-call-error', 'dns-rebinding-protection']) {
    test(scenario, async () => {
      const { stdout } = await run(process.execPath, [CONFORMANCE, 'server', '--url', router.url, '--scenario', scenario], { timeout: 300_000 });
      const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(stdout);
      assert.ok(summary, stdout);
      assert.equal(summary[3], '0', stdout);
      assert.equal(summary[1], summary[2]);
    });
  }
});

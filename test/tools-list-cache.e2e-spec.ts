import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ListChangeStreams } from '../src/mcp/list-change-streams';
import { waitFor } from './support/backend-processes';
import { FAULT_SERVER, faultStdioBackend } from './support/fault-backends';
import { startRouter, tempDir, testConfig, type RunningRouter } from './support/router';

/**
 * The per-caller tools/list is kept per access rule; what changes it without a catalog change (a
 * trust approval) must reach the list at once, and be announced.
 */

/** The `pins` CLI as an operator runs it, against a config file naming the same pins file. */
function pinsCli(dir: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const config = join(dir, 'router.yaml');
  writeFileSync(
    config,
    `backends:\n  flip:\n    transport: stdio\n    command: ${process.execPath}\n    args: [${JSON.stringify(FAULT_SERVER)}]\ntrust:\n  pinsFile: pins.json\n`,
  );
  const run = spawnSync(process.execPath, [join(__dirname, '..', 'src', 'cli.js'), 'pins', ...args], {
    env: { PATH: process.env.PATH ?? '', CENTRALMCP_ROUTER_CONFIG: config },
    encoding: 'utf8',
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** `promise`, or a failure naming `what` after a generous ceiling (so a missing event fails, not hangs). */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const ceiling = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not happen within 60 s`)), 60_000)));
  return Promise.race([promise, ceiling]).finally(() => clearTimeout(timer));
}

describe('publish.mode both with trust pins: tools/list follows a quarantine lifted without a catalog change', () => {
  const dir = tempDir('centralmcp-tools-list-cache-');
  let router: RunningRouter;
  const clients: Client[] = [];

  before(async () => {
    router = await startRouter(
      testConfig([faultStdioBackend('flip')], {
        // Nothing approved: every tool of flip waits for review, so none is published.
        trust: { mode: 'enforce', approveNewBackends: false, relistSeconds: 0, pinsFile: join(dir, 'pins.json') },
        publish: { mode: 'both', maxDirectTools: 128 },
      }),
    );
  });
  after(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await router?.close();
  });

  test('an approval by the CLI: the client keeping a stream is told, and its next tools/list has the tool', async () => {
    const client = new Client({ name: 'tools-list-cache-e2e', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(router.url)));
    clients.push(client);
    const names = async () => (await client.listTools()).tools.map((t) => t.name);
    const before = await names();
    assert.ok(before.includes('find_tool'));
    assert.ok(!before.includes('flip__fast'), 'quarantined: not published');
    // Listed twice with no change: the same list (the kept one).
    assert.deepEqual(await names(), before);

    const told = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    await waitFor(() => router.app.get(ListChangeStreams).size > 0, 60_000, 'the client keeps a stream');
    const approved = pinsCli(dir, ['approve', 'flip:fast', '--by', 'alice']);
    assert.equal(approved.code, 0, approved.stderr);
    await within(told, 'notifications/tools/list_changed');
    const after = await names();
    assert.deepEqual(
      after.filter((n) => !before.includes(n)),
      ['flip__fast'],
    );
  });
});

import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { freePort, httpBackend, SERVER_ENTRIES, startEverythingHttp, stdioBackend, stopProcess } from '../../../test/support/backend-servers';
import { waitFor } from '../../../test/support/backend-processes';
import { RouterError } from '../../common/router-error';
import type { BackendConfig } from '../../config/config.types';
import type { BackendChannel, ChannelEvents } from './backend-channel';
import { openChannel } from './open-channel';

/**
 * One contract, three transports: every channel is driven the same way against a real MCP server
 * (server-everything over stdio, Streamable HTTP and legacy SSE) and must answer the same way.
 */

/** What a channel reported to its supervisor. */
interface Reported {
  closed: string[];
  lost: string[];
  suspect: number;
  listChanged: number;
}

function recorder(): { events: ChannelEvents; seen: Reported } {
  const seen: Reported = { closed: [], lost: [], suspect: 0, listChanged: 0 };
  const events: ChannelEvents = {
    onClose: (reason) => seen.closed.push(reason),
    onLost: (reason) => seen.lost.push(reason),
    onSuspect: () => seen.suspect++,
    onListChanged: () => seen.listChanged++,
  };
  return { events, seen };
}

interface Target {
  config: BackendConfig;
  /** Makes the backend die under the channel. */
  kill(channel: BackendChannel): Promise<void>;
  stop(): Promise<void>;
}

async function remote(mode: 'streamableHttp' | 'sse'): Promise<Target> {
  const port = await freePort();
  const server: ChildProcess = await startEverythingHttp(port, mode);
  const url = mode === 'sse' ? `http://127.0.0.1:${port}/sse` : `http://127.0.0.1:${port}/mcp`;
  return {
    config: httpBackend(mode, url, { transport: mode === 'sse' ? 'sse' : 'http', timeoutMs: 5_000 }),
    kill: () => stopProcess(server),
    stop: () => stopProcess(server),
  };
}

const TARGETS: Record<'stdio' | 'http' | 'sse', () => Promise<Target>> = {
  stdio: () =>
    Promise.resolve({
      config: stdioBackend('stdio', SERVER_ENTRIES.everything, ['stdio'], { timeoutMs: 5_000 }),
      kill: (channel: BackendChannel) => Promise.resolve(channel.kill()),
      stop: () => Promise.resolve(),
    }),
  http: () => remote('streamableHttp'),
  sse: () => remote('sse'),
};

for (const [transport, start] of Object.entries(TARGETS)) {
  describe(`${transport} channel`, () => {
    let target: Target;
    let channel: BackendChannel;
    let seen: Reported;

    before(async () => {
      target = await start();
      const made = recorder();
      seen = made.seen;
      channel = openChannel(target.config, made.events);
      await channel.connect(5_000);
    });
    after(async () => {
      await channel?.close('shutdown');
      await target?.stop();
    });

    test('lists every tool, and has a process id only over stdio', async () => {
      const tools = await channel.listTools(() => 5_000);
      assert.ok(
        tools.some((t) => t.name === 'echo'),
        JSON.stringify(tools.map((t) => t.name)),
      );
      assert.equal(channel.pid !== undefined, transport === 'stdio');
    });

    test('a call answers the validated result', async () => {
      const result = await channel.call({ tool: 'echo', arguments: { message: 'through one door' }, timeoutMs: 5_000 });
      assert.equal(result.content[0]?.type, 'text');
      assert.match((result.content[0] as { text: string }).text, /through one door/);
    });

    test('a call past its deadline rejects with backend_timeout and leaves the channel working', async () => {
      await assert.rejects(
        channel.call({ tool: 'trigger-long-running-operation', arguments: { duration: 30, steps: 1 }, timeoutMs: 300 }),
        (err) => err instanceof RouterError && err.code === 'backend_timeout' && /300 ms/.test(err.message),
      );
      await channel.ping(5_000);
      assert.ok((await channel.call({ tool: 'echo', arguments: { message: 'still here' }, timeoutMs: 5_000 })).content.length > 0);
    });

    test('a backend that dies is reported to the supervisor, and the next call fails with a RouterError', async () => {
      await target.kill(channel);
      const call = channel.call({ tool: 'echo', arguments: { message: 'x' }, timeoutMs: 2_000 });
      await assert.rejects(call, (err) => err instanceof RouterError);
      await waitFor(() => seen.closed.length + seen.lost.length + seen.suspect > 0, 10_000, 'an event about the dead backend');
      assert.ok([...seen.closed, ...seen.lost].every((reason) => !reason.includes('\n')));
    });
  });
}

describe('a channel whose backend cannot be reached', () => {
  test('stdio: the failure names the command and the OS error', async () => {
    const config = { ...stdioBackend('typo', SERVER_ENTRIES.everything, []), command: 'centralmcp-no-such-command' };
    const channel = openChannel(config, recorder().events);
    const err = await channel.connect(2_000).then(
      () => assert.fail('connected to nothing'),
      (e: unknown) => e,
    );
    assert.equal(channel.describeFailure(err), 'cannot run command "centralmcp-no-such-command": ENOENT (no such file, or not on PATH)');
    await channel.close('reconnect');
  });

  for (const transport of ['http', 'sse'] as const) {
    test(`${transport}: the failure is one line that says the connection was refused`, async () => {
      const port = await freePort();
      const channel = openChannel(httpBackend('gone', `http://127.0.0.1:${port}/mcp`, { transport }), recorder().events);
      const err = await channel.connect(2_000).then(
        () => assert.fail('connected to nothing'),
        (e: unknown) => e,
      );
      const text = channel.describeFailure(err);
      assert.match(text, /ECONNREFUSED|fetch failed/);
      assert.ok(!text.includes('\n') && text.length <= 200);
      await channel.close('reconnect');
    });
  }
});

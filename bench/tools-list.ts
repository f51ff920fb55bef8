/**
 * `npm run bench:tools-list`: router CPU per `tools/list` with tools published directly
 * (`publish.mode: direct`), 1,000 backend tools, the caller's list computed for every request (as
 * before the per-identity cache: the cache is dropped before each request) against the list kept
 * per access identity, side by side in one run.
 *
 * In process: the real application (createApp, the real backend over stdio, the fault server with
 * 1,000 synthetic tools), each request handed to `McpService.handlePost` as the stdio front end
 * hands it (no socket, so the figure is the router's own work from the envelope's parse to the
 * answer's text: an answer whose body is an object is serialized as the POST route does). Rounds alternate between the two arms; each arm's
 * figure is the median of its rounds, in CPU microseconds per request (process.cpuUsage, user +
 * system). The load average is printed at the start and the end: other work on the machine
 * shows in both arms alike.
 *
 * Environment (optional): BENCH_TL_TOOLS (default 1000), BENCH_TL_ROUNDS (default 10 per arm),
 * BENCH_TL_REQUESTS (per round, default 200).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.factory';
import { BackendsService } from '../src/backends/backends.service';
import { ANONYMOUS } from '../src/common/principal';
import { loadConfig } from '../src/config/config.loader';
import { McpService } from '../src/mcp/mcp.service';
import { DirectToolsService } from '../src/publish/direct-tools.service';
import { FAULT_SERVER, loadAverages, median } from './harness';

const TOOLS = Number(process.env.BENCH_TL_TOOLS ?? 1000);
const ROUNDS = Number(process.env.BENCH_TL_ROUNDS ?? 10);
const REQUESTS = Number(process.env.BENCH_TL_REQUESTS ?? 200);
const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-tools-list-'));
  const configPath = join(dir, 'router.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      backends: {
        catalog: { transport: 'stdio', command: process.execPath, args: [FAULT_SERVER, '--name', 'catalog', '--tools', String(TOOLS)], timeoutMs: 30_000 },
      },
      publish: { mode: 'direct', maxDirectTools: 10_000 },
    }),
  );
  const config = loadConfig({ CENTRALMCP_ROUTER_CONFIG: configPath, CENTRALMCP_ROUTER_LOG_LEVEL: 'warn', PATH: process.env.PATH, HOME: process.env.HOME });
  const app = await createApp(config);
  await app.init();
  await app.get(BackendsService).start();
  const mcp = app.get(McpService);
  const direct = app.get(DirectToolsService);
  const request = { body: BODY, url: '/mcp', headers: {}, principal: ANONYMOUS };
  const published = direct.listFor(ANONYMOUS).tools.length;

  /** CPU microseconds per request of one round; `uncached` drops the kept lists before each request. */
  const round = async (uncached: boolean): Promise<number> => {
    const start = process.cpuUsage();
    for (let i = 0; i < REQUESTS; i++) {
      if (uncached) direct.invalidate();
      const answer = await mcp.handlePost(request);
      // Written as the POST route writes it: an object body is serialized there.
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      if (answer.status !== 200 || text.length < TOOLS) throw new Error(`tools/list answered ${answer.status}`);
    }
    const used = process.cpuUsage(start);
    return (used.user + used.system) / REQUESTS;
  };

  const loadAtStart = loadAverages();
  // Warm-up of both paths, unmeasured.
  await round(true);
  await round(false);
  const before: number[] = [];
  const after: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    before.push(await round(true));
    after.push(await round(false));
  }
  const loadAtEnd = loadAverages();
  const b = median(before);
  const a = median(after);
  process.stdout.write(
    [
      `tools/list CPU per request, publish.mode direct, ${TOOLS} backend tools (${published} published to the caller), ` +
        `${ROUNDS} alternating rounds of ${REQUESTS} requests per arm, in process`,
      `load average at start ${loadAtStart}, at end ${loadAtEnd}`,
      '',
      '| tools/list | CPU µs per request (median of rounds) | rounds min..max |',
      '|---|---:|---:|',
      `| computed per request (before) | ${b.toFixed(0)} | ${Math.min(...before).toFixed(0)}..${Math.max(...before).toFixed(0)} |`,
      `| kept per access identity (after) | ${a.toFixed(0)} | ${Math.min(...after).toFixed(0)}..${Math.max(...after).toFixed(0)} |`,
      '',
      `ratio before / after: ${(b / a).toFixed(2)}x`,
      '',
    ].join('\n'),
  );
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { waitFor } from './support/backend-processes';
import { FAULT_SERVER, readCounts } from './support/fault-backends';
import { scrapeMetrics } from './support/metrics';
import { type LogLine, msgOf, spawnRouter, stdioBackendYaml, type SpawnedRouter } from './support/router-process';
import { tempDir, type AnswerOf } from './support/router';

/**
 * Config reload as an operator does it: the built router in its own process, its config file
 * rewritten, then SIGHUP (or, with the watch on, nothing more than the file's change). Calls go
 * over plain HTTP and are read from their answers; the reload from the log, the audit line and
 * /metrics.
 */

const started: SpawnedRouter[] = [];
after(() => {
  for (const router of started) router.kill();
});

/** A tools/call over plain HTTP, with `key` as its bearer; the HTTP status, and the tool's structured content. */
async function post<N extends keyof AnswerOf>(
  mcpUrl: string,
  name: N,
  args: Record<string, unknown>,
  key?: string,
): Promise<{ status: number; answer?: AnswerOf[N] }> {
  const response = await fetch(mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  if (response.status !== 200) return { status: response.status };
  const body = (await response.json()) as { result: { structuredContent: AnswerOf[N] } };
  return { status: 200, answer: body.result.structuredContent };
}

/** A tools/call over plain HTTP; resolves with the tool's structured content. */
async function callTool<N extends keyof AnswerOf>(mcpUrl: string, name: N, args: Record<string, unknown>, key?: string): Promise<AnswerOf[N]> {
  const { status, answer } = await post(mcpUrl, name, args, key);
  assert.equal(status, 200);
  return answer!;
}

/** A fault server backend named `name`, counting what it receives in `dir/<name>.counts`. */
function fault(dir: string, name: string, args: string[] = [], extra: Record<string, string | number | boolean> = {}): string[] {
  return stdioBackendYaml(name, FAULT_SERVER, ['--name', name, '--count-file', join(dir, `${name}.counts`), ...args], { timeoutMs: 120_000, ...extra });
}

/** The same, with raw YAML values added to its block (a flow mapping stays as written). */
function faultWith(dir: string, name: string, raw: Record<string, string>): string[] {
  return [...fault(dir, name), ...Object.entries(raw).map(([key, value]) => `    ${key}: ${value}`)];
}

const yaml = (...blocks: string[][]) => [...blocks.flat(), ''].join('\n');
const logsWith = (router: SpawnedRouter, msg: string, where: (line: LogLine) => boolean = () => true) =>
  router.logs.filter((line) => msgOf(line) === msg && where(line));
const metric = async (mcpUrl: string, series: string) => (await scrapeMetrics({ url: mcpUrl })).get(series);

describe('SIGHUP reloads the config file', () => {
  const dir = tempDir('centralmcp-reload-');
  let router: SpawnedRouter;
  let mcpUrl: string;

  before(async () => {
    router = spawnRouter(yaml(['backends:'], fault(dir, 'alpha'), fault(dir, 'beta')));
    started.push(router);
    mcpUrl = await router.listening();
    await waitFor(() => logsWith(router, 'backends started').length === 1, 60_000, 'backends started');
  });

  test(
    'a backend added, removed and changed; calls in flight on the removed and the changed one finish on their old connection',
    { timeout: 300_000 },
    async () => {
      const release = join(dir, 'release');
      const onBeta = callTool(mcpUrl, 'invoke_read_tool', { name: 'wait_for_file', server: 'beta', arguments: { path: release } });
      const onAlpha = callTool(mcpUrl, 'invoke_read_tool', { name: 'wait_for_file', server: 'alpha', arguments: { path: release } });
      await waitFor(
        () => readCounts(join(dir, 'alpha.counts'))['tools/call:wait_for_file'] === 1 && readCounts(join(dir, 'beta.counts'))['tools/call:wait_for_file'] === 1,
        60_000,
        'both calls reached their backends',
      );
      assert.equal(
        await metric(mcpUrl, 'centralmcp_router_catalog_tools{backend="alpha"}'),
        await metric(mcpUrl, 'centralmcp_router_catalog_tools{backend="beta"}'),
      );
      const alphaTools = (await metric(mcpUrl, 'centralmcp_router_catalog_tools{backend="alpha"}'))!;

      // alpha now serves one synthetic tool more; beta goes; gamma comes.
      writeFileSync(router.configFile, yaml(['backends:'], fault(dir, 'alpha', ['--tools', '1']), fault(dir, 'gamma')));
      const bootLoaded = (await metric(mcpUrl, 'centralmcp_router_config_last_reload_success_timestamp_seconds'))!;
      router.child.kill('SIGHUP');
      await waitFor(() => logsWith(router, 'config reloaded').length === 1, 60_000, 'config reloaded');
      assert.ok((await metric(mcpUrl, 'centralmcp_router_config_last_reload_success_timestamp_seconds'))! > bootLoaded);
      const reloaded = logsWith(router, 'config reloaded')[0];
      assert.deepEqual(
        { trigger: reloaded.trigger, added: reloaded.backendsAdded, removed: reloaded.backendsRemoved, changed: reloaded.backendsChanged },
        { trigger: 'signal', added: ['gamma'], removed: ['beta'], changed: ['alpha'] },
      );
      // The audit line names what changed, never a value (here: the backends' command lines).
      await waitFor(() => router.logs.some((line) => line.kind === 'config_reload'), 60_000, 'the audit line of the reload');
      const audit = router.logs.find((line) => line.kind === 'config_reload')!;
      assert.deepEqual(
        { added: audit.backendsAdded, removed: audit.backendsRemoved, changed: audit.backendsChanged, sections: audit.sectionsChanged },
        { added: ['gamma'], removed: ['beta'], changed: ['alpha'], sections: [] },
      );
      assert.doesNotMatch(JSON.stringify(audit), /fault-server|--tools/);

      // The removed backend's tools left the catalog at once: a new call is told the tool is unknown.
      const toBeta = await callTool(mcpUrl, 'invoke_read_tool', { name: 'fast', server: 'beta' });
      assert.equal(toBeta.status, 'unknown_tool');
      await waitFor(() => logsWith(router, 'backend up', (l) => l.backend === 'gamma').length === 1, 60_000, 'gamma up');
      assert.equal((await callTool(mcpUrl, 'invoke_read_tool', { name: 'fast', server: 'gamma' })).status, 'ok');
      await waitFor(() => logsWith(router, 'backend up', (l) => l.backend === 'alpha').length === 2, 60_000, 'alpha up again');
      assert.equal(await metric(mcpUrl, 'centralmcp_router_catalog_tools{backend="alpha"}'), alphaTools + 1, 'the new alpha lists its new tool');
      assert.equal(await metric(mcpUrl, 'centralmcp_router_catalog_tools{backend="beta"}'), undefined);
      assert.equal((await callTool(mcpUrl, 'invoke_read_tool', { name: 'fast', server: 'alpha' })).status, 'ok');

      // The old connections still hold their calls; released, both answer.
      assert.deepEqual(logsWith(router, 'backend retired'), []);
      writeFileSync(release, '');
      const [beta, alpha] = await Promise.all([onBeta, onAlpha]);
      assert.equal(beta.status, 'ok', JSON.stringify(beta));
      assert.equal(alpha.status, 'ok', JSON.stringify(alpha));
      await waitFor(() => logsWith(router, 'backend retired').length === 2, 60_000, 'both old connections closed');
      assert.equal(await metric(mcpUrl, 'centralmcp_router_config_reloads_total{outcome="ok"}'), 1);
    },
  );

  test(
    'an invalid file changes nothing: the problems a boot would print are logged, the reload is counted failed, readiness stays',
    { timeout: 120_000 },
    async () => {
      const reloadedBefore = (await metric(mcpUrl, 'centralmcp_router_config_last_reload_success_timestamp_seconds'))!;
      const invalid = yaml(['backends:'], fault(dir, 'alpha', ['--tools', '1'], { timeoutMs: -5 }), ['nosuch: 1']);
      writeFileSync(router.configFile, invalid);
      router.child.kill('SIGHUP');
      await waitFor(() => logsWith(router, 'config reload failed: the running config stays').length === 1, 60_000, 'reload refused');
      const refused = logsWith(router, 'config reload failed: the running config stays')[0];

      // The same file at boot: the same problems, word for word.
      const boot = spawnRouter(invalid);
      started.push(boot);
      const [code] = await boot.exited;
      assert.equal(code, 78);
      const bootProblems = (JSON.parse(boot.other().trim()) as { problems: string[] }).problems;
      assert.deepEqual(refused.problems, bootProblems);
      assert.ok(bootProblems.length >= 2, JSON.stringify(bootProblems));

      assert.equal(await metric(mcpUrl, 'centralmcp_router_config_reloads_total{outcome="failed"}'), 1);
      assert.equal(await metric(mcpUrl, 'centralmcp_router_config_reloads_total{outcome="ok"}'), 1);
      assert.equal(await metric(mcpUrl, 'centralmcp_router_config_last_reload_success_timestamp_seconds'), reloadedBefore);
      assert.equal((await fetch(mcpUrl.replace(/\/mcp$/, '/health/ready'))).status, 200);
      assert.equal((await callTool(mcpUrl, 'invoke_read_tool', { name: 'fast', server: 'gamma' })).status, 'ok', 'the running config still serves');
    },
  );

  test('a section that needs a restart is named and left as running; the rest of the file applies', { timeout: 120_000 }, async () => {
    const pins = join(dir, 'pins.json');
    writeFileSync(
      router.configFile,
      yaml(
        ['backends:'],
        fault(dir, 'alpha', ['--tools', '1']),
        fault(dir, 'gamma'),
        [`trust: { mode: enforce, pinsFile: ${JSON.stringify(pins)} }`],
        ['policy:', '  readOnly:', '    deny: ["gamma:sleep"]'],
      ),
    );
    router.child.kill('SIGHUP');
    await waitFor(() => logsWith(router, 'config reloaded').length === 2, 60_000, 'config reloaded');
    const reloaded = logsWith(router, 'config reloaded')[1];
    assert.deepEqual({ sections: reloaded.sectionsChanged, restart: reloaded.restartRequired }, { sections: ['policy'], restart: ['trust'] });
    // A line of its own, written after the one above: it may reach the test in a later read of stdout.
    await waitFor(() => logsWith(router, 'config changes that apply only at the next start').length === 1, 60_000, 'restart-only changes named');
    assert.deepEqual(logsWith(router, 'config changes that apply only at the next start')[0].sections, ['trust']);
    // Pins are not turned on by a reload: an unpinned tool is still callable; the policy applied.
    assert.equal((await callTool(mcpUrl, 'invoke_read_tool', { name: 'fast', server: 'gamma' })).status, 'ok');
    assert.equal((await callTool(mcpUrl, 'invoke_read_tool', { name: 'sleep', server: 'gamma', arguments: { ms: 1 } })).status, 'blocked');
    assert.equal(await metric(mcpUrl, 'centralmcp_router_config_reloads_total{outcome="ok"}'), 2);
  });
});

const sha = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

/** Auth by API key `key`, everyone allowed everything. */
const apiKeyAuth = (key: string) => [
  'auth:',
  '  mode: apiKeys',
  `  apiKeys: [{ principal: alice, sha256: "${sha(key)}" }]`,
  'access:',
  '  - { groups: ["*"], allow: ["*"] }',
];
const OLD_KEY = 'k-old-0123456789abcdef';
const NEW_KEY = 'k-new-0123456789abcdef';

describe('with CENTRALMCP_ROUTER_WATCH_CONFIG on', () => {
  test(
    'a ConfigMap-style swap of the `..data` symlink is picked up: a backend added; a rotated API key, a read-only rule and a rate limit apply to the next call, the bucket keeps its tokens',
    { timeout: 300_000 },
    async () => {
      const dir = tempDir('centralmcp-watch-');
      // A mounted ConfigMap: router.yaml -> ..data/router.yaml, ..data -> ..v1; an update writes
      // ..v2 and renames a new symlink over ..data.
      const mount = join(dir, 'mount');
      mkdirSync(join(mount, '..v1'), { recursive: true });
      mkdirSync(join(mount, '..v2'));
      // alpha's own bucket: one token, refilled once in ~17 minutes, no waiting.
      const alphaLimit = (burst: number) => ({ rateLimit: `{ ratePerSecond: 0.001, burst: ${burst}, maxWaitMs: 0 }` });
      writeFileSync(join(mount, '..v1', 'router.yaml'), yaml(['backends:'], faultWith(dir, 'alpha', alphaLimit(1)), apiKeyAuth(OLD_KEY)));
      symlinkSync('..v1', join(mount, '..data'));
      symlinkSync(join('..data', 'router.yaml'), join(mount, 'router.yaml'));
      const router = spawnRouter('', { CENTRALMCP_ROUTER_CONFIG: join(mount, 'router.yaml'), CENTRALMCP_ROUTER_WATCH_CONFIG: 'true' });
      started.push(router);
      const mcpUrl = await router.listening();
      await waitFor(() => logsWith(router, 'backend up', (l) => l.backend === 'alpha').length === 1, 60_000, 'alpha up');
      assert.equal((await callTool(mcpUrl, 'invoke_read_tool', { name: 'fast', server: 'alpha' }, OLD_KEY)).status, 'ok');
      assert.match(JSON.stringify(await callTool(mcpUrl, 'invoke_read_tool', { name: 'fast', server: 'alpha' }, OLD_KEY)), /rate_limited/);
      // Not blocked: it reaches the (empty) bucket.
      assert.match(
        JSON.stringify(await callTool(mcpUrl, 'invoke_read_tool', { name: 'sleep', server: 'alpha', arguments: { ms: 1 } }, OLD_KEY)),
        /rate_limited/,
      );

      writeFileSync(
        join(mount, '..v2', 'router.yaml'),
        yaml(['backends:'], faultWith(dir, 'alpha', alphaLimit(5)), fault(dir, 'gamma'), apiKeyAuth(NEW_KEY), [
          'policy:',
          '  readOnly:',
          '    deny: ["alpha:sleep"]',
        ]),
      );
      symlinkSync('..v2', join(mount, '..data_tmp'));
      renameSync(join(mount, '..data_tmp'), join(mount, '..data'));

      await waitFor(() => logsWith(router, 'config reloaded').length === 1, 60_000, 'config reloaded');
      const reloaded = logsWith(router, 'config reloaded')[0];
      assert.deepEqual(
        { trigger: reloaded.trigger, added: reloaded.backendsAdded, changed: reloaded.backendsChanged, sections: reloaded.sectionsChanged },
        { trigger: 'file', added: ['gamma'], changed: ['alpha'], sections: ['policy', 'auth'] },
      );
      assert.equal((await post(mcpUrl, 'invoke_read_tool', { name: 'fast', server: 'alpha' }, OLD_KEY)).status, 401, 'the old key is gone');
      const denied = await callTool(mcpUrl, 'invoke_read_tool', { name: 'sleep', server: 'alpha', arguments: { ms: 1 } }, NEW_KEY);
      assert.equal(denied.status, 'blocked', JSON.stringify(denied));
      // A bucket of 5 would be full if it were new: alpha's kept its empty one.
      assert.match(JSON.stringify(await callTool(mcpUrl, 'invoke_read_tool', { name: 'fast', server: 'alpha' }, NEW_KEY)), /rate_limited/);
      await waitFor(() => logsWith(router, 'backend up', (l) => l.backend === 'gamma').length === 1, 60_000, 'gamma up');
      assert.equal((await callTool(mcpUrl, 'invoke_read_tool', { name: 'fast', server: 'gamma' }, NEW_KEY)).status, 'ok');
      assert.equal(logsWith(router, 'backend up', (l) => l.backend === 'alpha').length, 1, 'a backend whose rate limit alone changed keeps its connection');
      assert.equal(await metric(mcpUrl, 'centralmcp_router_config_reloads_total{outcome="ok"}'), 1);
    },
  );
});

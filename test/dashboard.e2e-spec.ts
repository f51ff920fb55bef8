import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { filesBackend, startRouter, tempDir, testConfig, type RunningRouter } from './support/router';

/**
 * The Grafana dashboard the Helm chart ships (architecture §8) is built on the router's metric names; a
 * renamed metric would leave a panel silently empty. These tests read the dashboard and check it
 * against the metrics the running router exports.
 */

const PREFIX = 'centralmcp_router_';
/** Series a Prometheus histogram (or summary) exposes under its base name. */
const HISTOGRAM_SERIES = /_(bucket|sum|count)$/;

interface Target {
  expr?: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: { name: string; type: string; query?: string | { query?: string } }[] };
}

/** The repository root: compiled tests run from dist/ or from any other --outDir. */
function repositoryRoot(): string {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'helm/centralmcp-router/Chart.yaml'))) return dir;
  }
  throw new Error(`no helm/centralmcp-router above ${__dirname}`);
}

const dashboard = JSON.parse(readFileSync(join(repositoryRoot(), 'helm/centralmcp-router/dashboards/centralmcp-router.json'), 'utf8')) as Dashboard;

function allPanels(panels: Panel[]): Panel[] {
  return panels.flatMap((p) => [p, ...allPanels(p.panels ?? [])]);
}

/** Every PromQL expression the dashboard runs: panel queries and template-variable queries. */
function queries(): string[] {
  const panelQueries = allPanels(dashboard.panels).flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? ''));
  const variableQueries = dashboard.templating.list
    .filter((v) => v.type === 'query')
    .map((v) => (typeof v.query === 'string' ? v.query : (v.query?.query ?? '')));
  return [...panelQueries, ...variableQueries];
}

/** The metric names the queries use, as written (with `_bucket`, `_sum`, `_count` where they are). */
function queriedNames(): string[] {
  const names = new Set<string>();
  for (const q of queries()) for (const m of q.matchAll(/\bcentralmcp_router_[a-z0-9_]+/g)) names.add(m[0]);
  return [...names].sort();
}

/** `# TYPE` lines of a Prometheus text exposition: metric name → type. */
function exposedTypes(exposition: string): Map<string, string> {
  const types = new Map<string, string>();
  for (const m of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) types.set(m[1], m[2]);
  return types;
}

/**
 * The exported metric a queried name refers to: itself when exported under that name, else, for a
 * histogram's `_bucket`/`_sum`/`_count` series, its base name when that is a histogram or summary.
 */
function exportedMetric(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  const base = name.replace(HISTOGRAM_SERIES, '');
  if (base !== name && ['histogram', 'summary'].includes(types.get(base) ?? '')) return base;
  return undefined;
}

describe('the Grafana dashboard', () => {
  test('is a dashboard whose panels each query the data source variable', () => {
    assert.equal(dashboard.uid, 'centralmcp-router');
    const panels = allPanels(dashboard.panels);
    const ids = panels.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length, 'panel ids are unique');
    for (const panel of panels.filter((p) => p.type !== 'row')) {
      assert.ok((panel.targets ?? []).length > 0, `${panel.title} has queries`);
      for (const target of panel.targets ?? []) {
        assert.ok(target.expr?.includes(PREFIX), `${panel.title}: ${target.expr}`);
        assert.equal(target.datasource?.uid, '${datasource}', `${panel.title} uses the data source variable`);
      }
    }
  });

  test('has the panels the chart promises', () => {
    const all = queries().join('\n');
    const expected: [string, RegExp][] = [
      ['calls by status', /sum by \(status\) \(rate\(centralmcp_router_calls_total\b/],
      ['calls by backend', /sum by \(backend\) \(rate\(centralmcp_router_calls_total\b/],
      ['latency p50', /histogram_quantile\(0\.5, [^\n]*centralmcp_router_backend_call_duration_seconds_bucket/],
      ['latency p95', /histogram_quantile\(0\.95, [^\n]*centralmcp_router_backend_call_duration_seconds_bucket/],
      ['latency p99', /histogram_quantile\(0\.99, [^\n]*centralmcp_router_backend_call_duration_seconds_bucket/],
      ['batch sizes', /centralmcp_router_batch_calls_bucket/],
      ['truncations', /centralmcp_router_responses_truncated_total/],
      ['rate-limit waits', /centralmcp_router_rate_limit_wait_seconds_bucket/],
      ['rate-limit timeouts', /centralmcp_router_rate_limit_timeouts_total/],
      ['backend up', /centralmcp_router_backend_up\b/],
      ['backend restarts', /centralmcp_router_backend_restarts/],
    ];
    for (const [panel, pattern] of expected) assert.match(all, pattern, panel);
  });

  describe('against the running router', () => {
    let router: RunningRouter;
    let types: Map<string, string>;

    before(async () => {
      router = await startRouter(testConfig([filesBackend(tempDir())]));
      const response = await fetch(new URL('/metrics', router.url));
      assert.equal(response.status, 200, 'GET /metrics answers 200');
      assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
      types = exposedTypes(await response.text());
    });
    after(async () => router?.close());

    test('exports every metric the dashboard queries', () => {
      const names = queriedNames();
      assert.ok(names.length >= 10, `the dashboard names the router's metrics: ${names.join(', ')}`);
      const missing = names.filter((name) => exportedMetric(name, types) === undefined);
      const exported = [...types.keys()].filter((n) => n.startsWith(PREFIX)).sort();
      assert.deepEqual(missing, [], `queried by the dashboard but not exported by GET /metrics; exported: ${exported.join(', ') || 'none'}`);
    });

    test('queries histogram series only of metrics that are histograms', () => {
      for (const name of queriedNames().filter((n) => n.endsWith('_bucket'))) {
        const base = name.replace(HISTOGRAM_SERIES, '');
        assert.equal(types.get(base), 'histogram', `${base} is a histogram (the dashboard runs histogram_quantile on it)`);
      }
    });
  });
});

import type { RunningRouter } from './router';

/** Every sample of a router's /metrics, keyed by series (`name{labels}`), parsed as numbers. */
export async function scrapeMetrics(router: Pick<RunningRouter, 'url'>): Promise<Map<string, number>> {
  const text = await (await fetch(router.url.replace(/\/mcp$/, '/metrics'))).text();
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

/** How much each series named `name` moved between two scrapes; series that did not move are left out. */
export function deltas(before: Map<string, number>, after: Map<string, number>, name: string): Record<string, number> {
  const moved: Record<string, number> = {};
  for (const [series, value] of after) {
    if (!series.startsWith(`${name}{`) && series !== name) continue;
    const delta = value - (before.get(series) ?? 0);
    if (delta !== 0) moved[series] = delta;
  }
  return moved;
}

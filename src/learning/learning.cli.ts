import { systemClock } from '../common/clock';
import type { DiscoveryConfig } from '../config/config.types';
import { parseSelector, selects, type Selector } from '../trust/domain/approval';
import type { AssociationView } from './domain/associations';
import { storeFor } from './learning-store.factory';

export const LEARNING_USAGE = 'usage: centralmcp-router learning list|reset [backend[:tool]]';

/** What the command printed and its exit code. */
export interface CliOutcome {
  code: number;
  out?: string;
  err?: string;
}

/**
 * `centralmcp-router learning list|reset [backend[:tool]]` (architecture §1.2): what `find_tool`
 * learned from use, and forgetting it. Works on the configured store: `file` (a running router
 * takes a reset up within a second) or `redis` (every replica does); `memory` lives only inside a
 * running router. Exit codes: 0 done, 1 nothing matched, 2 usage, 78 bad config.
 */
export async function learningCommand(argv: readonly string[], discovery: DiscoveryConfig | undefined): Promise<CliOutcome> {
  const [command, target, ...extra] = argv;
  if (!['list', 'reset'].includes(command ?? '') || extra.length > 0) return { code: 2, err: LEARNING_USAGE };
  let selector: Selector | undefined;
  if (target !== undefined) {
    selector = parseSelector(target);
    if (selector === undefined) return { code: 2, err: `not a backend or backend:tool: ${JSON.stringify(target.slice(0, 100))}` };
  }
  const learning = discovery?.learning;
  if (learning === undefined) return { code: 78, err: 'the config does not enable discovery.learning' };
  if (learning.store.kind === 'memory') return { code: 78, err: 'discovery.learning.store is memory: what was learned lives only inside the running router' };
  const store = storeFor(discovery ?? {}, systemClock);
  if (store === undefined) return { code: 78, err: 'the config does not enable discovery.learning' };
  await store.open();
  try {
    const matches = (key: string) => {
      const [backend, tool] = key.split('\u0000');
      return selects(selector, { backend, tool });
    };
    if (command === 'list') {
      const rows = store.associations.list(systemClock.now()).filter((a) => matches(a.tool));
      return { code: 0, out: rows.length === 0 ? 'nothing learned' : rows.map(line).join('\n') };
    }
    const forgotten = await store.forget(matches);
    return forgotten === 0 ? { code: 1, err: 'nothing learned matches' } : { code: 0, out: `forgot ${forgotten} association(s)` };
  } finally {
    await store.close();
  }
}

function line(a: AssociationView): string {
  return `${a.word} -> ${a.tool.replace('\u0000', ':')}  principals ${a.principals}  strength ${a.strength}  ${a.active ? 'in use' : 'not yet in use'}  last ${new Date(a.lastMs).toISOString()}`;
}

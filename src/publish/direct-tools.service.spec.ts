import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AccessService } from '../access/access.service';
import type { BackendsService } from '../backends/backends.service';
import type { Principal } from '../common/principal';
import { TRUST_DEFAULTS } from '../config/config.defaults';
import { ConfigService } from '../config/config.service';
import type { AccessConfig, PublishConfig, RouterConfig, WritesConfig } from '../config/config.types';
import { GateService } from '../gate/gate.service';
import type { MetricsService } from '../metrics/metrics.service';
import type { AuditService } from '../audit/audit.service';
import { RegistryService } from '../registry/registry.service';
import type { CatalogTool } from '../registry/registry.types';
import { TrustService } from '../trust/trust.service';
import { DirectToolsService } from './direct-tools.service';
import { publishedName } from './domain/published-name';

const schema = { type: 'object', properties: {} };
const tool = (backend: string, name: string, readOnly = true): CatalogTool => ({
  backend,
  name,
  description: `${name} of ${backend}`,
  inputSchema: schema,
  annotations: { readOnlyHint: readOnly },
});
const ann: Principal = { id: 'ann', groups: ['all'] };
const fay: Principal = { id: 'fay', groups: ['few'] };

function service(options: { writes?: WritesConfig; access?: AccessConfig; publish?: PublishConfig; configs?: ConfigService } = {}) {
  const registry = new RegistryService();
  const writes = options.writes ?? { enabled: false, allow: [], deny: [] };
  const auth = options.access ? { mode: 'apiKeys' as const, allowInsecure: false, apiKeys: [] } : { mode: 'none' as const, allowInsecure: false };
  // The config a reload announces is read only by the access rules here.
  const configs = options.configs ?? new ConfigService({} as RouterConfig);
  const access = new AccessService(options.access ?? {}, auth, configs);
  const gate = new GateService({ readOnly: { allow: [], deny: [] } }, writes, configs);
  // Trust off: it reads nothing of the backends, metrics or audit.
  const trust = new TrustService(TRUST_DEFAULTS, registry, {} as BackendsService, {} as MetricsService, {} as AuditService, configs);
  const direct = new DirectToolsService(registry, access, gate, trust, options.publish ?? { mode: 'both', maxDirectTools: 128 }, writes, configs);
  return { registry, direct };
}

test('names follow the catalog, and every change is announced', () => {
  const { registry, direct } = service();
  let changes = 0;
  direct.onChange(() => changes++);
  registry.replaceTools('files', [tool('files', 'read'), tool('files', 'stat')]);
  assert.deepEqual(
    direct.listFor(ann).tools.map((t) => t.name),
    ['files__read', 'files__stat'],
  );
  registry.replaceTools('files', [tool('files', 'read')]);
  assert.equal(direct.route('files__stat', ann), undefined);
  assert.equal(direct.route('files__read', ann)?.tool.name, 'read');
  assert.equal(changes, 2);
});

test('a name another tool already holds stays that tool’s; the newcomer is left out', () => {
  const { registry, direct } = service();
  const shortened = publishedName('a', 'b.c');
  // A tool literally named like the shortened name of another.
  const twin = shortened.slice('a__'.length);
  registry.replaceTools('a', [tool('a', 'b.c'), tool('a', twin)]);
  assert.deepEqual(
    direct.listFor(ann).tools.map((t) => t.name),
    [shortened],
  );
  assert.equal(direct.route(shortened, ann)?.tool.name, 'b.c');
});

test('route: a read for a read-only tool the caller may call, a write only with writes on, else nothing', () => {
  const writes = { enabled: true, allow: ['files:write'], deny: [] };
  const access = {
    rules: [
      { groups: ['all'], allow: ['*'], write: ['*'] },
      { groups: ['few'], allow: ['files:read'] },
    ],
  };
  const { registry, direct } = service({ writes, access });
  registry.replaceTools('files', [tool('files', 'read'), tool('files', 'write', false), tool('files', 'move', false)]);
  assert.equal(direct.route('files__read', ann)?.kind, 'read');
  assert.deepEqual(direct.route('files__write', ann), { kind: 'write', tool: registry.toolsOf('files')[1], confirmField: 'confirm' });
  assert.equal(direct.route('files__write', fay), undefined);
  assert.deepEqual(
    direct.listFor(ann).tools.map((t) => t.name),
    ['files__read', 'files__write'],
  );
  assert.deepEqual(
    direct.listFor(fay).tools.map((t) => t.name),
    ['files__read'],
  );
  const off = service({ access });
  off.registry.replaceTools('files', [tool('files', 'write', false)]);
  assert.equal(off.direct.route('files__write', ann), undefined);
});

test('mode meta publishes nothing directly and routes nothing', () => {
  const { registry, direct } = service({ publish: { mode: 'meta', maxDirectTools: 128 } });
  registry.replaceTools('files', [tool('files', 'read')]);
  assert.equal(direct.enabled, false);
  assert.deepEqual(direct.listFor(ann).tools, []);
  assert.equal(direct.route('files__read', ann), undefined);
});

test('one listing per access identity, kept until the catalog or the access rules change', () => {
  const configs = new ConfigService({} as RouterConfig);
  const access: AccessConfig = {
    rules: [
      { groups: ['all', 'also-all'], allow: ['*'] },
      { groups: ['few'], allow: ['files:read'] },
    ],
  };
  const { registry, direct } = service({ access, configs });
  registry.replaceTools('files', [tool('files', 'read'), tool('files', 'stat')]);
  const annList = direct.listFor(ann);
  // Another principal under the same rule shares the listing; one under another rule has its own.
  assert.equal(direct.listFor({ id: 'abe', groups: ['also-all'] }), annList);
  assert.deepEqual(
    direct.listFor(fay).tools.map((t) => t.name),
    ['files__read'],
  );
  assert.equal(direct.listFor(ann), annList);

  registry.replaceTools('files', [tool('files', 'read'), tool('files', 'stat'), tool('files', 'list')]);
  assert.deepEqual(
    direct.listFor(ann).tools.map((t) => t.name),
    ['files__list', 'files__read', 'files__stat'],
  );

  // A reload that swaps what the rules allow: the same principals get the new lists at once.
  const reloaded = {
    access: {
      rules: [
        { groups: ['all'], allow: ['files:stat'] },
        { groups: ['few'], allow: ['*'] },
      ],
    },
  } as unknown as RouterConfig;
  configs.apply(reloaded, { backendsAdded: [], backendsRemoved: [], backendsChanged: [], sectionsChanged: ['access'], restartRequired: [] });
  assert.deepEqual(
    direct.listFor(ann).tools.map((t) => t.name),
    ['files__stat'],
  );
  assert.deepEqual(
    direct.listFor(fay).tools.map((t) => t.name),
    ['files__list', 'files__read', 'files__stat'],
  );
});

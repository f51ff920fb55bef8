import assert from 'node:assert/strict';
import { Logger, type LoggerService } from '@nestjs/common';
import { before, test } from 'node:test';
import { RegistryService } from './registry.service';
import type { CatalogTool } from './registry.types';

const tool = (backend: string, name: string): CatalogTool => ({ backend, name, description: '', inputSchema: { type: 'object' } });

before(() => {
  Logger.overrideLogger(false);
});

test("listeners hear each replacement in its turn, in subscription order, with the backend's own tools", () => {
  const registry = new RegistryService();
  const heard: string[] = [];
  registry.onCatalogReplaced((backend, tools) => {
    // The catalog is already the new one when a listener runs.
    assert.equal(registry.toolsOf(backend), tools);
    heard.push(`first ${backend}: ${tools.map((t) => t.name).join(',')}`);
  });
  registry.onCatalogReplaced((backend) => heard.push(`second ${backend}`));
  registry.replaceTools('files', [tool('files', 'read'), tool('other', 'stray'), tool('files', 'read'), tool('files', 'write')]);
  assert.deepEqual(heard, ['first files: read,write', 'second files']);
});

test('the catalog reads back per backend, in order of first delivery, and a refresh keeps that order', () => {
  const registry = new RegistryService();
  registry.replaceTools('zeta', [tool('zeta', 'z')]);
  registry.replaceTools('alpha', [tool('alpha', 'a'), tool('alpha', 'b')]);
  registry.replaceTools('zeta', [tool('zeta', 'y')]);
  assert.deepEqual([...registry.backends()], ['zeta', 'alpha']);
  assert.deepEqual(
    [...registry.allTools()].map((t) => `${t.backend}:${t.name}`),
    ['zeta:y', 'alpha:a', 'alpha:b'],
  );
  assert.deepEqual(
    [...registry.sizes()],
    [
      ['zeta', 1],
      ['alpha', 2],
    ],
  );
  assert.equal(registry.hasCatalog('alpha'), true);
  assert.equal(registry.hasCatalog('beta'), false);
  assert.deepEqual(registry.toolsOf('beta'), []);
});

test('resolution follows replacements: a tool gone from its backend no longer resolves', () => {
  const registry = new RegistryService();
  registry.replaceTools('a', [tool('a', 'read')]);
  registry.replaceTools('b', [tool('b', 'read')]);
  assert.deepEqual(registry.resolve('read'), { kind: 'ambiguous', servers: ['a', 'b'] });
  registry.replaceTools('b', []);
  assert.equal(registry.resolve('read').kind, 'found');
  assert.deepEqual(registry.resolve('read', 'b'), { kind: 'unknown' });
});

test('a refresh that changed nothing logs at debug; a change, or the first catalog, at info', () => {
  const lines: [string, string][] = [];
  const record = (level: string) => (message: unknown) => {
    if ((message as { msg?: string }).msg === 'catalog updated') lines.push([level, JSON.stringify(message)]);
  };
  const capture: LoggerService = { log: record('info'), debug: record('debug'), warn: record('warn'), error: record('error'), verbose: record('verbose') };
  Logger.overrideLogger(capture);
  try {
    const registry = new RegistryService();
    registry.replaceTools('files', [tool('files', 'read')]);
    registry.replaceTools('files', [tool('files', 'read')]);
    registry.replaceTools('files', [{ ...tool('files', 'read'), description: 'rewritten' }]);
  } finally {
    Logger.overrideLogger(false);
  }
  assert.deepEqual(
    lines.map(([level]) => level),
    ['info', 'debug', 'info'],
  );
  assert.match(lines[2][1], /"changed":\["read"\]/);
});

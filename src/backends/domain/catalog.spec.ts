import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { toCatalogTools } from './catalog';

const schema = { type: 'object' as const, properties: {} };

test('tools become catalog entries of their backend, with an empty description by default', () => {
  const tools: Tool[] = [{ name: 'read_file', inputSchema: schema }];
  assert.deepEqual(toCatalogTools('files', tools), [{ backend: 'files', name: 'read_file', description: '', inputSchema: schema }]);
});

test('only the spec annotation hints are kept', () => {
  const annotations = { readOnlyHint: true, title: 'T', vendorHint: 1 }; // as a loose server sends it
  const tools: Tool[] = [{ name: 'a', description: 'A', inputSchema: schema, annotations }];
  assert.deepEqual(toCatalogTools('b', tools)[0].annotations, { readOnlyHint: true, title: 'T' });
});

test('a name listed twice keeps its first entry', () => {
  const tools: Tool[] = [
    { name: 'x', description: 'first', inputSchema: schema },
    { name: 'x', description: 'second', inputSchema: schema },
  ];
  assert.deepEqual(
    toCatalogTools('b', tools).map((t) => t.description),
    ['first'],
  );
});

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

test('a tool whose schema has a hidden character in a key is left out, named; its other strings are cleaned', () => {
  const skipped: [string, string | undefined][] = [];
  const tools: Tool[] = [
    { name: 'bidi_key', inputSchema: { type: 'object', properties: { ['pa\u202Eht']: { type: 'string' } } } },
    { name: 'tag_key', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { [`ok${String.fromCodePoint(0xe0041)}`]: {} } } },
    { name: 'values', inputSchema: { type: 'object', properties: { mode: { type: 'string', enum: ['fast\u001b[8m', 'slow\u200B'], default: 'a  b\u0007' } } } },
  ];
  const catalog = toCatalogTools('b', tools, (reason, tool) => skipped.push([reason, tool]));
  assert.deepEqual(
    catalog.map((t) => t.name),
    ['values'],
  );
  assert.deepEqual(catalog[0].inputSchema.properties, { mode: { type: 'string', enum: ['fast', 'slow'], default: 'a  b' } });
  assert.deepEqual(
    skipped.map(([, tool]) => tool),
    ['bidi_key', 'tag_key'],
  );
  assert.match(skipped[0][0], /key of its schema contains control, escape or invisible characters/);
});

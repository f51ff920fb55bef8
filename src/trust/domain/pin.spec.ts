import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CatalogTool } from '../../registry/registry.types';
import { definitionOf, pinOf } from './pin';

const tool: CatalogTool = {
  backend: 'files',
  name: 'read_file',
  description: 'Reads a file.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  annotations: { readOnlyHint: true },
};

test('a definition is the tool without its backend, optional parts only when present', () => {
  assert.deepEqual(definitionOf(tool), { name: 'read_file', description: 'Reads a file.', inputSchema: tool.inputSchema, annotations: { readOnlyHint: true } });
  const bare = definitionOf({ backend: 'files', name: 'x', description: '', inputSchema: { type: 'object' } });
  assert.deepEqual(Object.keys(bare), ['name', 'description', 'inputSchema']);
});

test('the same tool served by another backend has the same pin', () => {
  assert.equal(pinOf(definitionOf(tool)), pinOf(definitionOf({ ...tool, backend: 'elsewhere' })));
});

test('a pin is lower-case hex SHA-256, blind to key order and changed by any field', () => {
  const pin = pinOf(definitionOf(tool));
  assert.match(pin, /^[0-9a-f]{64}$/);
  const reordered = {
    annotations: { readOnlyHint: true },
    inputSchema: { properties: { path: { type: 'string' } }, type: 'object' },
    description: 'Reads a file.',
    name: 'read_file',
  };
  assert.equal(pinOf(reordered), pin);
  assert.notEqual(pinOf(definitionOf({ ...tool, description: 'Reads a file!' })), pin);
  assert.notEqual(pinOf(definitionOf({ ...tool, annotations: { readOnlyHint: false } })), pin);
  assert.notEqual(pinOf(definitionOf({ ...tool, outputSchema: { type: 'object' } })), pin);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { paramHeadersOf, paramHeaderValues } from './param-headers';

test('x-mcp-header: annotations on a chain of properties are found, nested too', () => {
  const schema = {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      query: { type: 'string' },
      opts: { type: 'object', properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry' }, n: { type: 'integer', 'x-mcp-header': 'N' } } },
    },
  };
  const headers = paramHeadersOf(schema);
  assert.deepEqual(headers, [
    { header: 'Region', path: ['region'] },
    { header: 'Dry', path: ['opts', 'dry'] },
    { header: 'N', path: ['opts', 'n'] },
  ]);
  assert.deepEqual(paramHeaderValues(headers as never, { region: 'us-west1', query: 'q', opts: { dry: false, n: 42 } }), {
    'mcp-param-region': 'us-west1',
    'mcp-param-dry': 'false',
    'mcp-param-n': '42',
  });
  assert.deepEqual(paramHeaderValues(headers as never, { region: 'Hello, 世界', opts: null }), { 'mcp-param-region': '=?base64?SGVsbG8sIOS4lueVjA==?=' });
  assert.deepEqual(paramHeadersOf({ type: 'object', properties: { a: { type: 'string' } } }), []);
});

test('x-mcp-header: a bad name, a number, a duplicate or an annotation off the properties chain make the tool invalid', () => {
  const invalid = (schema: unknown) => 'invalid' in (paramHeadersOf(schema) as object);
  assert.ok(invalid({ properties: { a: { type: 'string', 'x-mcp-header': '' } } }));
  assert.ok(invalid({ properties: { a: { type: 'string', 'x-mcp-header': 'bad name' } } }));
  assert.ok(invalid({ properties: { a: { type: 'number', 'x-mcp-header': 'A' } } }));
  assert.ok(invalid({ properties: { a: { type: 'string', 'x-mcp-header': 'A' }, b: { type: 'string', 'x-mcp-header': 'a' } } }));
  assert.ok(invalid({ properties: { a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } } }));
  assert.ok(invalid({ oneOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }));
  assert.ok(!invalid({ properties: { 'x-mcp-header': { type: 'string' } } }), 'a property named x-mcp-header is just a property');
});

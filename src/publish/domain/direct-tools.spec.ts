import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CatalogTool } from '../../registry/registry.types';
import { beyondLimitInstructions, confirmField, directDefinition, MAX_NAMED_BEYOND, splitAtLimit, type DirectCandidate } from './direct-tools';

const tool = (over: Partial<CatalogTool> = {}): CatalogTool => ({
  backend: 'files',
  name: 'read_text_file',
  description: 'Read a file.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  ...over,
});

test('a read is annotated read-only whatever its backend said, with no output schema', () => {
  const def = directDefinition({
    tool: tool({ annotations: { readOnlyHint: false, openWorldHint: false }, outputSchema: { type: 'object' } }),
    kind: 'read',
    name: 'files__read_text_file',
  });
  assert.equal(def.name, 'files__read_text_file');
  assert.deepEqual(def.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  assert.deepEqual(def.inputSchema, tool().inputSchema);
  assert.equal('outputSchema' in def, false);
});

test('the description is cleaned and cut as find_tool shows it; the title too', () => {
  const def = directDefinition({
    tool: tool({ description: `Read\u200b a\nfile ${'x'.repeat(400)}`, annotations: { title: 'Read\u202e it' } }),
    kind: 'read',
    name: 'n',
  });
  assert.match(def.description, /^Read a file x+…$/);
  assert.equal(Array.from(def.description).length, 300);
  assert.equal(def.title, 'Read it');
  assert.equal(def.annotations.title, 'Read it');
});

test('a write keeps its backend annotations and gains `confirm` unless it is not destructive', () => {
  const annotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true };
  const def = directDefinition({ tool: tool({ name: 'write_file', annotations }), kind: 'write', name: 'files__write_file' });
  assert.deepEqual(def.annotations, annotations);
  const props = def.inputSchema.properties as Record<string, { type: string; maxLength: number }>;
  assert.deepEqual(Object.keys(props), ['path', 'confirm']);
  assert.equal(props.confirm.type, 'string');
  assert.deepEqual(def.inputSchema.required, ['path']);
  const safe = directDefinition({ tool: tool({ annotations: { destructiveHint: false } }), kind: 'write', name: 'n' });
  assert.deepEqual(Object.keys(safe.inputSchema.properties as object), ['path']);
});

test('a tool with its own `confirm` gets the token in `_confirm`', () => {
  const own = tool({ inputSchema: { type: 'object', properties: { confirm: { type: 'boolean' }, _confirm: { type: 'string' } } } });
  assert.equal(confirmField(own), '__confirm');
  assert.equal(confirmField(tool()), 'confirm');
  assert.equal(confirmField(tool({ annotations: { destructiveHint: false } })), undefined);
});

test('the first `max` by published name are published, the rest named in the instructions', () => {
  const candidates: DirectCandidate[] = ['c', 'a', 'b'].map((n) => ({ tool: tool({ name: n }), kind: 'read', name: `files__${n}` }));
  const { published, beyond } = splitAtLimit(candidates, 2);
  assert.deepEqual(
    published.map((c) => c.name),
    ['files__a', 'files__b'],
  );
  assert.deepEqual(
    beyond.map((c) => c.name),
    ['files__c'],
  );
  const text = beyondLimitInstructions(
    beyond.map((c) => c.tool),
    2,
  );
  assert.match(text, /Only 2 backend tools are published/);
  assert.match(text, /find_tool/);
  assert.match(text, /files:c\./);
  assert.equal(beyondLimitInstructions([], 2), '');
});

test('past 100 tools the instructions count the rest', () => {
  const many = Array.from({ length: MAX_NAMED_BEYOND + 5 }, (_, i) => ({ backend: 'b', name: `t${i}` }));
  const text = beyondLimitInstructions(many, 1);
  assert.match(text, /b:t99, and 5 more\.$/);
  assert.doesNotMatch(text, /b:t100/);
});

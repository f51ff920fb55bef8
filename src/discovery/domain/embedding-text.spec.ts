import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CatalogTool } from '../../registry/registry.types';
import { embeddingKey, embeddingText, MAX_EMBEDDING_TEXT_CHARS } from './embedding-text';

const tool = (over: Partial<CatalogTool> = {}): CatalogTool => ({
  backend: 'files',
  name: 'read_file',
  description: 'Read a file.',
  inputSchema: { type: 'object', properties: { path: { type: 'string', description: 'Where\nit is' }, encoding: { type: 'string' } } },
  ...over,
});

test('the text holds the name, title, description and parameters, cleaned, and not the backend', () => {
  assert.equal(embeddingText(tool()), 'read_file: Read a file.. Parameters: path (Where it is); encoding');
  assert.equal(embeddingText(tool({ annotations: { title: 'Read file' }, inputSchema: {} })), 'read_file (Read file): Read a file.');
  assert.equal(embeddingText(tool({ description: 'Read\u001b[31m a \u200bfile', inputSchema: {} })), 'read_file: Read a file');
  assert.equal(embeddingText(tool({ backend: 'other' })), embeddingText(tool()));
});

test('the text is bounded, and its key is the SHA-256 of the text', () => {
  assert.ok(Array.from(embeddingText(tool({ description: 'x'.repeat(10_000) }))).length <= MAX_EMBEDDING_TEXT_CHARS);
  assert.equal(embeddingKey('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.notEqual(embeddingKey(embeddingText(tool())), embeddingKey(embeddingText(tool({ description: 'Read a file!' }))));
});

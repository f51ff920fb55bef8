import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LruCache, ToolVectorStore, type ToolText } from './vector-cache';

const v = (...values: number[]) => Float32Array.from(values);
const tool = (name: string, text = `${name} text`): ToolText => ({ name, key: `k:${text}`, text });

test('LruCache keeps the most recently used entries within its capacity', () => {
  const cache = new LruCache<string, number>(2);
  cache.set('a', 1);
  cache.set('b', 2);
  assert.equal(cache.get('a'), 1);
  cache.set('c', 3);
  assert.equal(cache.get('b'), undefined);
  assert.equal(cache.get('a'), 1);
  assert.equal(cache.get('c'), 3);
  assert.equal(cache.size, 2);
  assert.equal(cache.delete('a'), 1);
  cache.clear();
  assert.equal(cache.size, 0);
});

test('a text is embedded once, whichever backends and tools use it', () => {
  const store = new ToolVectorStore(10);
  store.setBackend('one', [tool('read'), tool('write')]);
  store.setBackend('two', [tool('read'), tool('alias', 'read text')]);
  assert.deepEqual(
    store.missing(10).map((m) => m.text),
    ['read text', 'write text'],
  );
  assert.equal(store.put('k:read text', v(1, 0)), false);
  assert.deepEqual(
    store.missing(10).map((m) => m.text),
    ['write text'],
  );
  assert.deepEqual(store.vectorOf('one', 'read'), v(1, 0));
  assert.deepEqual(store.vectorOf('two', 'alias'), v(1, 0));
  assert.equal(store.vectorOf('two', 'write'), undefined);
  assert.equal(store.embeddedTools(), 3);
  assert.equal(store.embeddedTexts, 1);
  assert.deepEqual(store.missing(0), []);
  assert.deepEqual(
    store.missing(10, (key) => key === 'k:write text'),
    [],
  );
});

test('a refresh keeps the vectors of unchanged texts; a text that leaves and comes back keeps its vector', () => {
  const store = new ToolVectorStore(10);
  store.setBackend('one', [tool('read'), tool('write')]);
  store.put('k:read text', v(1, 0));
  store.put('k:write text', v(0, 1));
  store.setBackend('one', [tool('read'), tool('write', 'write changed')]);
  assert.deepEqual(
    store.missing(10).map((m) => m.text),
    ['write changed'],
  );
  assert.deepEqual(store.vectorOf('one', 'read'), v(1, 0));
  store.setBackend('one', [tool('read'), tool('write')]);
  assert.deepEqual(store.missing(10), []);
  assert.deepEqual(store.vectorOf('one', 'write'), v(0, 1));
  store.setBackend('one', []);
  assert.equal(store.vectorOf('one', 'read'), undefined);
  assert.equal(store.embeddedTools(), 0);
});

test('retired vectors are bounded', () => {
  const store = new ToolVectorStore(1);
  store.setBackend('one', [tool('a'), tool('b')]);
  store.put('k:a text', v(1, 0));
  store.put('k:b text', v(0, 1));
  store.setBackend('one', []);
  store.setBackend('one', [tool('a'), tool('b')]);
  assert.deepEqual(
    store.missing(10).map((m) => m.text),
    ['a text'],
  );
});

test('a vector of another length drops every vector: the catalog is embedded again', () => {
  const store = new ToolVectorStore(10);
  store.setBackend('one', [tool('a'), tool('b')]);
  store.put('k:a text', v(1, 0));
  store.put('k:b text', v(0, 1));
  assert.equal(store.dimension, 2);
  assert.equal(store.put('k:a text', v(1, 0, 0)), true);
  assert.equal(store.dimension, 3);
  assert.deepEqual(
    store.missing(10).map((m) => m.text),
    ['b text'],
  );
  assert.equal(store.vectorOf('one', 'b'), undefined);
  store.reset();
  assert.equal(store.dimension, undefined);
  assert.equal(store.embeddedTools(), 0);
  assert.equal(store.missing(10).length, 2);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withDefaults } from './defaults';

class Block {
  name!: string;
  size?: number;
  tags?: string[];
}

test('a field the block leaves out takes its default; a field it sets wins', () => {
  const block: Block = Object.assign(new Block(), { name: 'a', size: undefined });
  assert.deepEqual(withDefaults(block, { size: 3, tags: [] }), { name: 'a', size: 3, tags: [] });
  const zero: Block = Object.assign(new Block(), { name: 'b', size: 0 });
  assert.deepEqual(withDefaults(zero, { size: 3 }), { name: 'b', size: 0 });
});

test('an absent block is its defaults, as a plain object', () => {
  const loaded = withDefaults<Block, { size: number }>(undefined, { size: 3 });
  assert.deepEqual(loaded, { size: 3 });
  assert.equal(Object.getPrototypeOf(withDefaults(new Block(), {})), Object.prototype);
});

test('no two blocks share an array default', () => {
  const defaults = { tags: [] as string[] };
  const one = withDefaults(new Block(), defaults);
  one.tags.push('x');
  assert.deepEqual(withDefaults(new Block(), defaults).tags, []);
  assert.deepEqual(defaults.tags, []);
});

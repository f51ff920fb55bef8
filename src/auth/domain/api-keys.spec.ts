import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { apiKeyEntry, matchApiKey } from './api-keys';

const sha = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');
const entries = [
  apiKeyEntry({ principal: 'alice', sha256: sha('alice-key'), groups: ['readers'] }),
  apiKeyEntry({ principal: 'bob', sha256: sha('bob-key'), groups: [] }),
  apiKeyEntry({ principal: 'alice', sha256: sha('alice-new-key'), groups: ['readers'] }),
];

test('a key matches the entry holding its SHA-256, wherever it is in the list', () => {
  assert.equal(matchApiKey('alice-key', entries)?.principal, 'alice');
  assert.equal(matchApiKey('bob-key', entries)?.principal, 'bob');
  assert.equal(matchApiKey('alice-new-key', entries), entries[2]);
});

test('anything else matches nothing: other keys, the hash itself, near misses', () => {
  for (const presented of ['', 'alice-key ', 'ALICE-KEY', sha('alice-key'), 'x'.repeat(5000)]) {
    assert.equal(matchApiKey(presented, entries), undefined, presented.slice(0, 20));
  }
  assert.equal(matchApiKey('alice-key', []), undefined);
});

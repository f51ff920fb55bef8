import assert from 'node:assert/strict';
import { test } from 'node:test';
import { grantedFilter, grantedKinds } from './list-subscription';

test('a subscription is granted the lists it asked for with true among those that can change for the caller', () => {
  const all = ['tools', 'resources', 'prompts'] as const;
  assert.deepEqual(grantedKinds({ toolsListChanged: true, promptsListChanged: true }, all), ['tools', 'prompts']);
  assert.deepEqual(grantedKinds({ toolsListChanged: true, resourcesListChanged: true }, ['resources']), ['resources']);
  assert.deepEqual(grantedKinds({ toolsListChanged: 'yes', resourcesListChanged: false, resourceSubscriptions: ['x'] }, all), []);
  assert.deepEqual(grantedKinds(undefined, all), []);
  assert.deepEqual(grantedKinds('all', all), []);
});

test('the acknowledgment names only what was granted', () => {
  assert.deepEqual(grantedFilter(['tools']), { toolsListChanged: true });
  assert.deepEqual(grantedFilter(['resources', 'prompts']), { resourcesListChanged: true, promptsListChanged: true });
  assert.deepEqual(grantedFilter([]), {});
});

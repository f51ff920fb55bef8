import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expandEnv } from './expand-env';

test('expands variables in nested strings, leaving keys and non-strings alone', () => {
  const { value, missing } = expandEnv({ a: { headers: { Authorization: 'Bearer ${TOKEN}' } }, n: 3, list: ['${TOKEN}', true] }, { TOKEN: 's3cret' });
  assert.deepEqual(value, { a: { headers: { Authorization: 'Bearer s3cret' } }, n: 3, list: ['s3cret', true] });
  assert.deepEqual(missing, []);
});

test('a missing variable is reported with its field path', () => {
  const { missing } = expandEnv({ backends: { docs: { url: 'https://${HOST}/mcp' } } }, {});
  assert.deepEqual(missing, [{ path: 'backends.docs.url', variable: 'HOST' }]);
});

test('defaults apply to unset or empty variables, and $${ escapes', () => {
  const { value, missing } = expandEnv(['${A:-x}', '${B:-}', '$${LITERAL}'], { B: '' });
  assert.deepEqual(value, ['x', '', '${LITERAL}']);
  assert.deepEqual(missing, []);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bodyKindOf } from './post-body';

test('JSON and plain text bodies are read as text, whatever the case of the media type and its parameters', () => {
  for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON', ' application/json ;x=1', 'text/plain']) {
    assert.equal(bodyKindOf(type, '10', undefined), 'text', type);
  }
});

test('another media type is unsupported, also one that only starts like JSON', () => {
  for (const type of ['application/jsonx', 'application/vnd.api+json', 'text/html', '']) assert.equal(bodyKindOf(type, '10', undefined), 'unsupported', type);
});

test('without a Content-Type: no body is an empty text, a body is unsupported', () => {
  assert.equal(bodyKindOf(undefined, undefined, undefined), 'empty');
  assert.equal(bodyKindOf(undefined, '0', undefined), 'empty');
  assert.equal(bodyKindOf(undefined, '5', undefined), 'unsupported');
  assert.equal(bodyKindOf(undefined, undefined, 'chunked'), 'unsupported');
});

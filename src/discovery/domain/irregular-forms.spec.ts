import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IRREGULAR_FORMS } from './irregular-forms';

test("every form of a group maps to the group's base form", () => {
  assert.deepEqual(IRREGULAR_FORMS.get('arose'), ['arise']);
  assert.deepEqual(IRREGULAR_FORMS.get('arisen'), ['arise']);
  assert.deepEqual(IRREGULAR_FORMS.get('children'), ['child']);
  assert.deepEqual(IRREGULAR_FORMS.get('best'), ['good']);
  for (const form of ['was', 'were', 'been', 'am', 'is', 'are']) assert.deepEqual(IRREGULAR_FORMS.get(form), ['be']);
});

test('a form spelt like its base ("cut", "read") is not listed: there is nothing to undo', () => {
  assert.equal(IRREGULAR_FORMS.has('cut'), false);
  assert.equal(IRREGULAR_FORMS.has('read'), false);
});

test('the table holds single lowercase words only, and no form is its own base', () => {
  assert.ok(IRREGULAR_FORMS.size > 200);
  for (const [form, bases] of IRREGULAR_FORMS) {
    assert.match(form, /^[a-z]+$/);
    assert.ok(bases.length > 0 && bases.every((base) => /^[a-z]+$/.test(base) && base !== form), form);
    assert.equal(new Set(bases).size, bases.length, `${form} lists each base once`);
  }
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkBatch } from './batch-input';

const call = (extra: Record<string, unknown> = {}) => ({ name: 'read_text_file', ...extra });

test('whole-batch rejections: missing, not a list, empty, too many, unknown field', () => {
  assert.equal((checkBatch({}) as { code: string }).code, 'invalid_batch');
  assert.equal((checkBatch({ calls: 'x' }) as { code: string }).code, 'invalid_batch');
  assert.equal((checkBatch({ calls: {} }) as { code: string }).code, 'invalid_batch');
  assert.equal((checkBatch({ calls: [] }) as { code: string }).code, 'invalid_batch');
  assert.equal((checkBatch({ calls: Array.from({ length: 26 }, () => call()) }) as { code: string }).code, 'too_many_calls');
  assert.equal(checkBatch({ calls: Array.from({ length: 25 }, () => call()) }).ok, true);
  assert.equal((checkBatch({ calls: [call()], mode: 'fast' }) as { code: string }).code, 'invalid_batch');
});

test('defect 1: an explicit id "0" beside an entry without id at index 0 is a duplicate', () => {
  const check = checkBatch({ calls: [call(), call({ id: '0' })] });
  assert.equal(check.ok, false);
  assert.equal((check as { code: string }).code, 'duplicate_id');
});

test('explicit duplicates are refused and the message echoes no value', () => {
  const check = checkBatch({ calls: [call({ id: 'secret-id' }), call({ id: 'secret-id' })] });
  assert.equal((check as { code: string }).code, 'duplicate_id');
  assert.ok(!JSON.stringify(check).includes('secret-id'));
});

test("a malformed id is that entry's problem, answered under its index", () => {
  const check = checkBatch({ calls: [call({ id: 'x'.repeat(101) }), call({ id: 7 }), call({ id: 'bell\u0007' }), call({ id: '' }), call({ id: 'ok ✓' })] });
  assert.ok(check.ok);
  assert.deepEqual(
    check.entries.map((e) => e.id),
    ['0', '1', '2', '3', 'ok ✓'],
  );
  assert.deepEqual(
    check.entries.map((e) => e.idError !== undefined),
    [true, true, true, true, false],
  );
  assert.equal(check.entries[4].call && (check.entries[4].call as Record<string, unknown>).id, undefined, 'the id is not passed on as a call field');
});

test('a malformed id whose index collides with an explicit id is a duplicate', () => {
  const check = checkBatch({ calls: [call({ id: 5 }), call({ id: '0' })] });
  assert.equal((check as { code: string }).code, 'duplicate_id');
});

test('entries that are not objects still get an entry (judged later as invalid_call)', () => {
  const check = checkBatch({ calls: ['read_text_file', null, 3] });
  assert.ok(check.ok);
  assert.deepEqual(
    check.entries.map((e) => e.id),
    ['0', '1', '2'],
  );
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePins, serializePins } from './pins-file';

const SHA = 'a'.repeat(64);
const pin = { backend: 'b', tool: 't', sha256: SHA, firstSeen: 'T0', approvedBy: 'alice', approvedAt: 'T1', definition: { name: 't' } };
const pending = { backend: 'b', tool: 'u', sha256: SHA, reason: 'new' as const, seenAt: 'T2', definition: { name: 'u' } };
const file = (doc: unknown) => JSON.stringify(doc);

test('a file the router wrote reads back as written', () => {
  const text = serializePins({ version: 1, pins: [pin], pending: [pending] });
  assert.deepEqual(parsePins(text), { version: 1, pins: [pin], pending: [pending] });
  assert.equal(serializePins(parsePins(text)), text);
});

test('each broken rule is named, the first one in file order', () => {
  const cases: [unknown, string][] = [
    [[], 'the pins file must be a JSON object with `pins`'],
    [null, 'the pins file must be a JSON object with `pins`'],
    [{ version: 2, pins: 'x' }, 'the pins file has an unknown `version` (expected 1)'],
    [{ version: 1 }, "the pins file's `pins` must be an array"],
    [
      { version: 1, pins: [pin, { ...pin, sha256: 'nope' }], pending: 'x' },
      "the pins file's `pins[1]` needs backend, tool, a 64-hex-digit sha256 and definition",
    ],
    [{ version: 1, pins: [], pending: {} }, "the pins file's `pending` must be an array"],
    [{ version: 1, pins: [], pending: [pending, null] }, "the pins file's `pending[1]` needs backend, tool, a 64-hex-digit sha256 and definition"],
    [{ version: 1, pins: [{ ...pin, definition: null }] }, "the pins file's `pins[0]` needs backend, tool, a 64-hex-digit sha256 and definition"],
    [{ version: 1, pins: [{ ...pin, backend: 7 }] }, "the pins file's `pins[0]` needs backend, tool, a 64-hex-digit sha256 and definition"],
  ];
  for (const [doc, message] of cases) assert.throws(() => parsePins(file(doc)), { message }, file(doc));
  assert.throws(() => parsePins('{'), { message: 'the pins file is not valid JSON' });
});

test('a pin written by hand needs only backend, tool, sha256 and definition; what it adds is kept', () => {
  const byHand = { backend: 'b', tool: 't', sha256: SHA, definition: { name: 't' }, note: 'checked by bob' };
  const doc = parsePins(file({ version: 1, pins: [byHand], pending: null }));
  assert.deepEqual(doc, { version: 1, pins: [byHand], pending: [] });
  assert.equal(doc.pins[0].approvedBy, undefined);
  assert.deepEqual((JSON.parse(serializePins(doc)) as { pins: unknown[] }).pins, [byHand]);
});

test('a metadata field of the wrong type leaves the entry valid and is dropped', () => {
  const doc = parsePins(file({ version: 1, pins: [{ ...pin, approvedAt: 20260101 }], pending: [{ ...pending, reason: 'renamed' }] }));
  assert.equal(doc.pins[0].approvedAt, undefined);
  assert.equal(doc.pins[0].approvedBy, 'alice');
  assert.equal(doc.pending[0].reason, undefined);
  assert.equal('approvedAt' in (JSON.parse(serializePins(doc)) as { pins: object[] }).pins[0], false);
});

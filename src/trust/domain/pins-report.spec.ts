import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PinsDocument } from './pins-file';
import { diffReport, listReport } from './pins-report';

const definition = (description: string) => ({ name: 'lookup', description, inputSchema: { type: 'object' } });
const SHA_A = 'a'.repeat(64);
const SHA_B = 'b'.repeat(64);

const doc: PinsDocument = {
  version: 1,
  pins: [{ backend: 'tp1', tool: 'lookup', sha256: SHA_A, approvedBy: 'alice', approvedAt: '2026-01-01T00:00:00.000Z', definition: definition('Looks up.') }],
  pending: [
    {
      backend: 'tp1',
      tool: 'lookup',
      sha256: SHA_B,
      reason: 'changed',
      seenAt: '2026-01-02T00:00:00.000Z',
      definition: definition('Looks up, then mails it.'),
    },
    { backend: 'tp2', tool: 'fresh', sha256: SHA_B, reason: 'new', seenAt: '2026-01-03T00:00:00.000Z', definition: definition('New.') },
  ],
};

test('the list shows pinned tools first, then pending ones, each with its full hash', () => {
  assert.deepEqual(listReport(doc, undefined).split('\n'), [
    `pinned   tp1:lookup  ${SHA_A}  approved by alice at 2026-01-01T00:00:00.000Z`,
    `pending  tp1:lookup  ${SHA_B}  changed, seen 2026-01-02T00:00:00.000Z`,
    `pending  tp2:fresh  ${SHA_B}  new, seen 2026-01-03T00:00:00.000Z`,
  ]);
});

test('a selector narrows the list and the diff; nothing selected says so', () => {
  assert.equal(listReport(doc, { backend: 'tp2' }).split('\n').length, 1);
  assert.equal(listReport(doc, { backend: 'nope' }), 'no tools');
  assert.equal(diffReport(doc, { backend: 'nope' }), 'nothing pending');
});

test('the diff shows a changed definition against the approved one, and a new one against nothing', () => {
  const [changed, fresh] = diffReport(doc, undefined).split('\n\n');
  assert.match(changed, new RegExp(`^tp1:lookup \\(changed\\)\\n- sha256 ${SHA_A}\\n\\+ sha256 ${SHA_B}\\n`));
  assert.match(changed, /^- {3}"description": "Looks up\.",$/m);
  assert.match(changed, /^\+ {3}"description": "Looks up, then mails it\.",$/m);
  assert.match(fresh, /^tp2:fresh \(new\)\n- sha256 \(no approved definition\)\n\+ sha256 b{64}\n/);
});

test('hidden characters in a definition reach the reviewer escaped, never raw', () => {
  const hostile: PinsDocument = {
    ...doc,
    pending: [{ ...doc.pending[0], definition: { ...definition('Looks\u202E up'), inputSchema: { enum: [`a${String.fromCodePoint(0xe0041)}`, 'b\u0007'] } } }],
  };
  const diff = diffReport(hostile, undefined);
  assert.match(diff, /Looks\\u\{202E\} up/);
  assert.match(diff, /a\\u\{E0041\}/);
  assert.match(diff, /b\\u0007/, 'JSON already escapes C0 controls');
  // eslint-disable-next-line no-control-regex -- the BEL that must not reach the terminal raw
  assert.doesNotMatch(diff, /[\u202E\u0007]|\u{E0041}/u);
  assert.doesNotMatch(listReport({ ...doc, pins: [{ ...doc.pins[0], approvedBy: 'eve\u202E' }] }, undefined), /\u202E/);
});

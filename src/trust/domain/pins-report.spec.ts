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

test('the list shows pinned tools first, then pending ones, each with a short hash', () => {
  assert.deepEqual(listReport(doc, undefined).split('\n'), [
    `pinned   tp1:lookup  ${SHA_A.slice(0, 12)}  approved by alice at 2026-01-01T00:00:00.000Z`,
    `pending  tp1:lookup  ${SHA_B.slice(0, 12)}  changed, seen 2026-01-02T00:00:00.000Z`,
    `pending  tp2:fresh  ${SHA_B.slice(0, 12)}  new, seen 2026-01-03T00:00:00.000Z`,
  ]);
});

test('a selector narrows the list and the diff; nothing selected says so', () => {
  assert.equal(listReport(doc, { backend: 'tp2' }).split('\n').length, 1);
  assert.equal(listReport(doc, { backend: 'nope' }), 'no tools');
  assert.equal(diffReport(doc, { backend: 'nope' }), 'nothing pending');
});

test('the diff shows a changed definition against the approved one, and a new one against nothing', () => {
  const [changed, fresh] = diffReport(doc, undefined).split('\n\n');
  assert.match(changed, new RegExp(`^tp1:lookup \\(changed\\) ${SHA_A.slice(0, 12)} -> ${SHA_B.slice(0, 12)}\\n`));
  assert.match(changed, /^- {3}"description": "Looks up\.",$/m);
  assert.match(changed, /^\+ {3}"description": "Looks up, then mails it\.",$/m);
  assert.match(fresh, /^tp2:fresh \(new\) \(no approved definition\) -> /);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { approvePending, lineDiff, newPins, parseSelector } from './approval';
import type { PinsDocument } from './pins-file';

const definition = (description: string) => ({ name: 't', description, inputSchema: {} });
const sha = (c: string) => c.repeat(64);
const doc: PinsDocument = {
  version: 1,
  pins: [{ backend: 'b', tool: 't', sha256: sha('a'), firstSeen: 'T0', approvedBy: 'approveNewBackends', approvedAt: 'T0', definition: definition('old') }],
  pending: [
    { backend: 'b', tool: 't', sha256: sha('b'), reason: 'changed', seenAt: 'T1', definition: definition('new') },
    { backend: 'c', tool: 'u', sha256: sha('c'), reason: 'new', seenAt: 'T1', definition: definition('u') },
  ],
};

test('selectors name a backend or one of its tools', () => {
  assert.deepEqual(parseSelector('files'), { backend: 'files' });
  assert.deepEqual(parseSelector('files:read_file'), { backend: 'files', tool: 'read_file' });
  assert.equal(parseSelector('Files'), undefined);
  assert.equal(parseSelector('files:'), undefined);
});

test('approval moves the selected pending definitions to pins, keeping when the tool was first seen', () => {
  const { doc: after, approved } = approvePending(doc, { backend: 'b' }, 'alice', 'T2');
  assert.deepEqual(
    approved.map((p) => p.tool),
    ['t'],
  );
  assert.deepEqual(after.pins, [
    { backend: 'b', tool: 't', sha256: sha('b'), firstSeen: 'T0', approvedBy: 'alice', approvedAt: 'T2', definition: definition('new') },
  ]);
  assert.deepEqual(
    after.pending.map((p) => p.backend),
    ['c'],
  );
  assert.deepEqual(
    newPins(doc, after).map((p) => p.sha256),
    [sha('b')],
  );
  assert.equal(approvePending(doc, { backend: 'x' }, 'alice', 'T2').doc, doc);
});

test('the diff marks removed and added lines and keeps the rest as context', () => {
  assert.equal(lineDiff('a\nb\nc', 'a\nB\nc'), '  a\n- b\n+ B\n  c');
  assert.equal(lineDiff('', 'x\ny'), '+ x\n+ y', 'a tool never approved: all of it is new');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { approvePending, hashMismatches, lineDiff, newPins, parseHashPrefix, parseSelector, unknownBackendMessage } from './approval';
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

test('--hash takes 8 to 64 hex digits, either case', () => {
  assert.equal(parseHashPrefix('ABCDEF01'), 'abcdef01');
  assert.equal(parseHashPrefix('b'.repeat(64)), 'b'.repeat(64));
  for (const bad of ['abcdef0', 'b'.repeat(65), 'abcdefgh', '']) assert.equal(parseHashPrefix(bad), undefined, bad);
});

test('an approval bound to a hash finds the pending definitions that are not the reviewed one', () => {
  assert.deepEqual(hashMismatches(doc, { backend: 'b', tool: 't' }, 'bbbbbbbb'), []);
  assert.deepEqual(
    hashMismatches(doc, { backend: 'b', tool: 't' }, 'aaaaaaaa').map((p) => p.sha256),
    [sha('b')],
  );
});

test('a backend neither configured nor in the file is named as unknown', () => {
  assert.equal(unknownBackendMessage(doc, { backend: 'b' }, []), undefined, 'in the file: known');
  assert.equal(unknownBackendMessage(doc, { backend: 'x' }, ['x']), undefined, 'configured: known');
  assert.equal(
    unknownBackendMessage(doc, { backend: 'nosuch' }, ['b', 'c']),
    'no backend named nosuch: the config names b, c, and the pins file has no entry of it',
  );
});

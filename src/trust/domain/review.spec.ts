import assert from 'node:assert/strict';
import { test } from 'node:test';
import { definitionOf, pinOf } from './pin';
import { EMPTY_PINS, parsePins, serializePins } from './pins-file';
import { reviewCatalog, type SeenTool } from './review';

const NOW = '2026-01-01T00:00:00.000Z';

function seen(name: string, description = `does ${name}`, readOnlyHint = true): SeenTool {
  const definition = definitionOf({ backend: 'b', name, description, inputSchema: { type: 'object' }, annotations: { readOnlyHint } });
  return { tool: name, sha256: pinOf(definition), definition };
}

test('a pin ignores key order and covers description, schema and annotations', () => {
  const a = pinOf({ name: 't', description: 'd', inputSchema: { type: 'object', properties: {} } });
  const b = pinOf({ inputSchema: { properties: {}, type: 'object' }, description: 'd', name: 't' });
  assert.equal(a, b);
  assert.notEqual(seen('t').sha256, seen('t', 'other').sha256);
  assert.notEqual(seen('t').sha256, seen('t', undefined, false).sha256);
  assert.notEqual(pinOf({ name: 't', description: 'd', inputSchema: {} }), pinOf({ name: 't', description: 'd', inputSchema: {}, outputSchema: {} }));
});

test('a new backend is approved wholesale only when asked', () => {
  const approved = reviewCatalog(EMPTY_PINS, 'b', [seen('x'), seen('y')], { approveNewBackend: true, nowIso: NOW, previous: undefined });
  assert.deepEqual([...approved.verdicts.values()], ['pinned', 'pinned']);
  assert.equal(approved.doc.pins.length, 2);
  assert.deepEqual(
    approved.events.map((e) => e.kind),
    ['approved', 'approved'],
  );
  const held = reviewCatalog(EMPTY_PINS, 'b', [seen('x')], { approveNewBackend: false, nowIso: NOW, previous: undefined });
  assert.deepEqual([...held.verdicts.values()], ['unpinned']);
  assert.deepEqual(
    held.doc.pending.map((p) => [p.tool, p.reason]),
    [['x', 'new']],
  );
});

test("a known backend's new tool is not approved by approveNewBackends", () => {
  const first = reviewCatalog(EMPTY_PINS, 'b', [seen('x')], { approveNewBackend: true, nowIso: NOW, previous: undefined });
  const next = reviewCatalog(first.doc, 'b', [seen('x'), seen('y')], { approveNewBackend: true, nowIso: NOW, previous: first.verdicts });
  assert.equal(next.verdicts.get('y'), 'unpinned');
});

test('a change is quarantined once, a re-list of the same change is silent, going back releases it', () => {
  const first = reviewCatalog(EMPTY_PINS, 'b', [seen('x')], { approveNewBackend: true, nowIso: NOW, previous: undefined });
  const drift = reviewCatalog(first.doc, 'b', [seen('x', 'poisoned')], { approveNewBackend: true, nowIso: NOW, previous: first.verdicts });
  assert.equal(drift.verdicts.get('x'), 'changed');
  assert.deepEqual(
    drift.events.map((e) => e.kind),
    ['quarantined'],
  );
  assert.equal(drift.doc.pending[0].reason, 'changed');
  const again = reviewCatalog(drift.doc, 'b', [seen('x', 'poisoned')], { approveNewBackend: true, nowIso: NOW, previous: drift.verdicts });
  assert.deepEqual(again.events, []);
  assert.equal(again.doc, drift.doc, 'nothing new: the file is not rewritten');
  const back = reviewCatalog(again.doc, 'b', [seen('x')], { approveNewBackend: true, nowIso: NOW, previous: again.verdicts });
  assert.equal(back.verdicts.get('x'), 'pinned');
  assert.deepEqual(
    back.events.map((e) => e.kind),
    ['released'],
  );
  assert.deepEqual(back.doc.pending, []);
});

test('the pins file round-trips, sorted, and a bad entry is named', () => {
  const { doc } = reviewCatalog(EMPTY_PINS, 'b', [seen('y'), seen('x')], { approveNewBackend: true, nowIso: NOW, previous: undefined });
  const text = serializePins(doc);
  assert.deepEqual(
    parsePins(text).pins.map((p) => p.tool),
    ['x', 'y'],
  );
  assert.throws(() => parsePins('{'), /not valid JSON/);
  assert.throws(() => parsePins('{"version":2,"pins":[]}'), /version/);
  assert.throws(() => parsePins('{"version":1,"pins":[{"backend":"b","tool":"x","sha256":"nope","definition":{}}]}'), /pins\[0\]/);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Associations, learnedScores, type Observation } from './associations';

const LIMITS = { minPrincipals: 3, halfLifeMs: 1000, maxAssociations: 100 };
const seen = (principal: string, word = 'blorp', tool = 'util\u0000get-sum', atMs = 0, definition = 'd1'): Observation => ({
  word,
  tool,
  definition,
  principal,
  atMs,
});

test('an association is used once minPrincipals distinct principals made it, not before', () => {
  const a = new Associations(LIMITS);
  for (let i = 0; i < 20; i += 1) a.observe([seen('p1')]);
  a.observe([seen('p2')]);
  assert.equal(a.signal(0, 1).size, 0);
  assert.equal(a.observe([seen('p3')]), false, 'nothing in use was dropped');
  const signal = a.signal(0, 2);
  assert.equal(signal.size, 1);
  assert.equal(learnedScores(signal, ['blorp']).get('util\u0000get-sum')! > 0, true);
  assert.equal(learnedScores(signal, ['other']).size, 0);
});

test('a word that led to many tools says less about each', () => {
  const a = new Associations(LIMITS);
  for (const p of ['p1', 'p2', 'p3']) a.observe([seen(p, 'sum', 't1'), seen(p, 'find', 't1'), seen(p, 'find', 't2')]);
  const scores = learnedScores(a.signal(0, 1), ['sum', 'find']);
  assert.equal(scores.get('t1')! > scores.get('t2')!, true);
});

test('parts decay: after enough half-lives an association is no longer used, and prune forgets it', () => {
  const a = new Associations(LIMITS);
  a.observe(['p1', 'p2', 'p3'].map((p) => seen(p)));
  assert.equal(a.signal(1000, 1).size, 1);
  assert.equal(a.signal(10_000, 2).size, 0);
  a.prune(10_000);
  assert.equal(a.size, 0);
});

test('a tool observed with another definition forgets what it had', () => {
  const a = new Associations(LIMITS);
  a.observe(['p1', 'p2', 'p3'].map((p) => seen(p)));
  a.observe([seen('p4', 'blorp', 'util\u0000get-sum', 0, 'd2')]);
  assert.equal(a.signal(0, 1).size, 0);
  assert.deepEqual(
    a.changedTools(() => 'd3'),
    ['util\u0000get-sum'],
  );
  assert.deepEqual(
    a.changedTools(() => 'd2'),
    [],
  );
});

test('the number of associations is bounded, the least recently made going first', () => {
  const a = new Associations({ ...LIMITS, maxAssociations: 10 });
  for (let i = 0; i < 25; i += 1) a.observe([seen('p1', `w${i}`)]);
  assert.equal(a.size, 10);
  assert.deepEqual(
    a
      .list(0)
      .map((v) => v.word)
      .slice(0, 2),
    ['w24', 'w23'],
  );
});

test('forget and observations round-trip what a store writes', () => {
  const a = new Associations(LIMITS);
  a.observe([seen('p1', 'x', 'a\u0000t'), seen('p1', 'x', 'b\u0000t')]);
  const b = new Associations(LIMITS);
  b.observe(a.observations());
  assert.equal(b.size, 2);
  assert.equal(
    b.forget((tool) => tool.startsWith('a\u0000')),
    1,
  );
  assert.equal(b.size, 1);
});

test('refreshing the observed words gives what a whole rebuild gives, under a new version', () => {
  const a = new Associations(LIMITS);
  a.observe(['p1', 'p2', 'p3'].map((p) => seen(p, 'sum', 't1')));
  const before = a.signal(0, 1);
  a.observe(['p1', 'p2', 'p3'].map((p) => seen(p, 'sum', 't2')));
  a.observe(['p1', 'p2', 'p3'].map((p) => seen(p, 'blorp', 't2')));
  const refreshed = a.refresh(before, ['sum', 'blorp'], 0);
  const whole = a.signal(0, 9);
  assert.equal(refreshed.version, 2);
  assert.equal(refreshed.size, whole.size);
  assert.deepEqual([...refreshed.byWord].sort(), [...whole.byWord].sort());
});

test('a changed definition dropping associations in use says so: the whole signal must be rebuilt', () => {
  const a = new Associations(LIMITS);
  a.observe(['p1', 'p2', 'p3'].map((p) => seen(p)));
  assert.equal(a.observe([seen('p1', 'other', 'util\u0000get-sum', 0, 'd2')]), true);
});

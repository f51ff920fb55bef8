import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Position } from './position';
import { argumentsDigest } from './canonical';
import { checkCursor, type CursorClaims, decodeCursor, encodeCursor, MAX_CURSOR_LENGTH } from './cursor-codec';

const KEY = Buffer.alloc(32, 7);
const NOW = 1_800_000_000;
const claims: CursorClaims = {
  backend: 'files',
  tool: 'read_file',
  argsDigest: argumentsDigest({ path: '/secret/plan.txt' }),
  principal: 'alice@example.com',
  position: { kind: 'array', path: ['data', 'rows'], index: 40 },
  expiresAt: NOW + 600,
};
const binding = { backend: 'files', tool: 'read_file', argsDigest: claims.argsDigest, principal: 'alice@example.com' };

/** A token whose MAC is right, for payloads the encoder would never write. */
function signed(payload: string): string {
  const body = Buffer.from(payload, 'utf8').toString('base64url');
  return `${body}.${createHmac('sha256', KEY).update(body).digest('base64url')}`;
}

test('a cursor decodes to the claims it was made from, for every kind of position', () => {
  const positions: Position[] = [
    claims.position,
    { kind: 'string', path: ['content'], offset: 16_384 },
    { kind: 'string', path: ['data', 'file', 'body'], offset: 0 },
    { kind: 'content', block: 2, offset: 17 },
    { kind: 'json', offset: 0 },
  ];
  for (const position of positions) {
    const token = encodeCursor({ ...claims, position }, KEY);
    assert.match(token, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(decodeCursor(token, KEY, NOW), { ok: true, claims: { ...claims, position } });
  }
  const anonymous = { ...claims };
  delete anonymous.principal;
  assert.deepEqual(decodeCursor(encodeCursor(anonymous, KEY), KEY, NOW), { ok: true, claims: anonymous });
});

test('a cursor carries the argument digest, never the argument values', () => {
  const token = encodeCursor(claims, KEY);
  const payload = Buffer.from(token.split('.')[0], 'base64url').toString('utf8');
  assert.ok(!payload.includes('secret') && !payload.includes('plan.txt'));
  assert.ok(payload.includes(claims.argsDigest));
  assert.equal((JSON.parse(payload) as { v: unknown }).v, 1);
});

test('checkCursor hands back the position for the call it was made for', () => {
  assert.deepEqual(checkCursor(encodeCursor(claims, KEY), KEY, NOW, binding), { ok: true, position: claims.position });
});

test('a cursor for another backend, tool, argument set or caller is a mismatch', () => {
  const token = encodeCursor(claims, KEY);
  const others = [
    { ...binding, backend: 'files2' },
    { ...binding, tool: 'read_text_file' },
    { ...binding, argsDigest: argumentsDigest({ path: '/other' }) },
    { ...binding, principal: 'mallory@example.com' },
    { backend: binding.backend, tool: binding.tool, argsDigest: binding.argsDigest },
  ];
  for (const expected of others) assert.deepEqual(checkCursor(token, KEY, NOW, expected), { ok: false, reason: 'mismatch' });
});

test('a cursor is expired from its expiry second on', () => {
  const token = encodeCursor(claims, KEY);
  assert.equal(decodeCursor(token, KEY, claims.expiresAt - 1).ok, true);
  assert.deepEqual(decodeCursor(token, KEY, claims.expiresAt), { ok: false, reason: 'expired' });
  assert.deepEqual(checkCursor(token, KEY, claims.expiresAt + 1, binding), { ok: false, reason: 'expired' });
});

test('a cursor signed with another key is a bad signature', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), (bytes) => {
      const foreign = Buffer.from(bytes);
      fc.pre(!foreign.equals(KEY));
      assert.deepEqual(decodeCursor(encodeCursor(claims, foreign), KEY, NOW), { ok: false, reason: 'bad_signature' });
    }),
    { seed: 11, numRuns: 100 },
  );
});

// Positions of the string kind (and array paths, held to the same limits) the decoder refuses.
const stringPositionGarbage: unknown[] = [
  ['s', 'content', 0],
  ['s', ['content']],
  ['s', ['content'], 0, 1],
  ['s', ['content'], -1],
  ['s', ['content'], 1.5],
  ['s', ['content'], '3'],
  ['s', ['content'], null],
  ['s', [], 0],
  ['s', [true], 0],
  ['s', [null], 0],
  ['s', [-1], 0],
  ['s', [['content']], 0],
  ['s', Array.from({ length: 17 }, () => 'k'), 0],
  ['s', ['k'.repeat(1_100)], 0],
  ['s', ['中'.repeat(400)], 0],
  ['S', ['content'], 0],
  ['string', ['content'], 0],
  { kind: 'string', path: ['content'], offset: 0 },
  ['a', [], 0],
  ['a', Array.from({ length: 17 }, () => 'k'), 0],
  ['a', ['k'.repeat(1_100)], 0],
];

test('garbage of every kind is malformed, never a throw', () => {
  const valid = encodeCursor(claims, KEY);
  const garbage = [
    '',
    '.',
    'abc',
    'abc.',
    '.abc',
    valid.replace('.', '..'),
    `${valid}.${valid.split('.')[1]}`,
    'x'.repeat(MAX_CURSOR_LENGTH + 1),
    `${valid.split('.')[0]}=.${valid.split('.')[1]}`,
    'not base64!.abc',
    signed('not json'),
    signed('[]'),
    signed('null'),
    signed('{"v":1}'),
    signed(JSON.stringify({ v: 2, b: 'files', t: 'read_file', d: 'x', e: NOW + 60, o: ['j', 0] })),
    signed(JSON.stringify({ v: 1, b: 'files', t: 'read_file', d: 'x', e: NOW + 60, o: ['j', -1] })),
    signed(JSON.stringify({ v: 1, b: 'files', t: 'read_file', d: 'x', e: NOW + 60, o: ['j', 1.5] })),
    signed(JSON.stringify({ v: 1, b: 'files', t: 'read_file', d: 'x', e: NOW + 60, o: ['a', 'rows', 0] })),
    signed(JSON.stringify({ v: 1, b: 'files', t: 'read_file', d: 'x', e: NOW + 60, o: ['c', 0] })),
    ...stringPositionGarbage.map((o) => signed(JSON.stringify({ v: 1, b: 'files', t: 'read_file', d: 'x', e: NOW + 60, o }))),
    signed(JSON.stringify({ v: 1, b: 'files', t: 'read_file', d: 'x', e: NOW + 60, o: { kind: 'json', offset: 0 } })),
    signed(JSON.stringify({ v: 1, b: '', t: 'read_file', d: 'x', e: NOW + 60, o: ['j', 0] })),
    signed(JSON.stringify({ v: 1, b: 'files', t: 'read_file', d: 'x', p: 5, e: NOW + 60, o: ['j', 0] })),
    signed(JSON.stringify({ v: 1, b: 'files', t: 'read_file', d: 'x', e: 'soon', o: ['j', 0] })),
    signed(JSON.stringify({ v: 1, b: 'files', t: 'read_file', d: 'x', e: NOW + 60, o: ['j', 0], args: { path: '/x' } })),
  ];
  for (const token of garbage) assert.deepEqual(decodeCursor(token, KEY, NOW), { ok: false, reason: 'malformed' }, token.slice(0, 80));
  assert.deepEqual(decodeCursor(12 as unknown as string, KEY, NOW), { ok: false, reason: 'malformed' });
});

test('random strings are never accepted', () => {
  const tokenish = fc.stringMatching(/^[A-Za-z0-9_-]{0,80}\.[A-Za-z0-9_-]{0,60}$/);
  fc.assert(
    fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), tokenish), (s) => {
      assert.equal(decodeCursor(s, KEY, NOW).ok, false);
    }),
    { seed: 12, numRuns: 2_000 },
  );
});

/** Every single-character edit of a valid cursor for `position` must be refused. */
function assertTamperProof(position: Position): void {
  const token = encodeCursor({ ...claims, position }, KEY);
  const replacement = fc.oneof(fc.constantFrom(...'ABCabc012_-.=+/ '), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }));
  fc.assert(
    fc.property(fc.nat({ max: token.length - 1 }), replacement, (i, c) => {
      fc.pre(c !== token[i]);
      const tampered = token.slice(0, i) + c + token.slice(i + 1);
      assert.equal(decodeCursor(tampered, KEY, NOW).ok, false);
    }),
    { seed: 13, numRuns: 2_000 },
  );
  // Every position and every base64url letter, since the last letter of a segment has spare bits.
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  for (let i = 0; i < token.length; i++) {
    for (const c of alphabet) {
      if (c === token[i]) continue;
      assert.equal(decodeCursor(token.slice(0, i) + c + token.slice(i + 1), KEY, NOW).ok, false, `${i}:${c}`);
    }
  }
}

test('changing any single character of a valid cursor gets it rejected', () => assertTamperProof(claims.position));

test('changing any single character of a string-position cursor gets it rejected', () =>
  assertTamperProof({ kind: 'string', path: ['content'], offset: 123_456 }));

test('claims the decoder would refuse are never encoded', () => {
  assert.throws(() => encodeCursor({ ...claims, position: { kind: 'json', offset: -1 } }, KEY), TypeError);
  assert.throws(() => encodeCursor({ ...claims, position: { kind: 'string', path: ['content'], offset: 0.5 } }, KEY), TypeError);
  assert.throws(() => encodeCursor({ ...claims, position: { kind: 'string', path: [], offset: 0 } }, KEY), TypeError);
  const deep = Array.from({ length: 17 }, () => 'k');
  assert.throws(() => encodeCursor({ ...claims, position: { kind: 'string', path: deep, offset: 0 } }, KEY), TypeError);
  assert.throws(() => encodeCursor({ ...claims, position: { kind: 'array', path: deep, index: 0 } }, KEY), TypeError);
  assert.throws(() => encodeCursor({ ...claims, backend: '' }, KEY), TypeError);
  assert.throws(() => encodeCursor({ ...claims, tool: 'x'.repeat(4_000) }, KEY), RangeError);
});

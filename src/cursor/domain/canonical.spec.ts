import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { argumentsDigest, canonicalArguments, canonicalJson } from './canonical';

test('object keys are sorted at every depth, arrays keep their order', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [3, 1, { z: 0, y: 0 }], c: null } }), '{"a":{"c":null,"d":[3,1,{"y":0,"z":0}]},"b":1}');
});

test('JSON.stringify rules hold for the values JSON cannot represent', () => {
  assert.equal(canonicalJson({ a: undefined, b: () => 1, c: [undefined, NaN, Infinity] }), '{"c":[null,null,null]}');
  assert.equal(canonicalJson(new Date(0)), '"1970-01-01T00:00:00.000Z"');
  assert.equal(canonicalJson(undefined), 'null');
  assert.equal(canonicalJson('é"\\\n'), JSON.stringify('é"\\\n'));
  const boxed = { b: new Boolean(false), n: new Number(1), s: new String('x') };
  assert.equal(canonicalJson(boxed), JSON.stringify(boxed));
  assert.throws(() => canonicalJson({ big: 1n }), TypeError);
});

test('toJSON is called with the key or index, as JSON.stringify calls it', () => {
  const named = { toJSON: (key: string) => `at ${key}` };
  assert.equal(canonicalJson({ b: named, a: [named] }), '{"a":["at 0"],"b":"at b"}');
  assert.equal(canonicalJson({ toJSON: () => ({ z: 1, y: undefined }) }), '{"z":1}');
});

test('a circular structure is refused like JSON.stringify refuses it', () => {
  const loop: Record<string, unknown> = {};
  loop.self = loop;
  assert.throws(() => canonicalJson(loop), TypeError);
  const ring: unknown[] = [];
  ring.push({ ring });
  assert.throws(() => canonicalJson(ring), TypeError);
  const shared = { x: 1 };
  assert.equal(canonicalJson([shared, shared]), '[{"x":1},{"x":1}]', 'a value seen twice is not a circle');
});

test('canonical JSON parses back to the same value as plain JSON', () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => {
      assert.deepEqual(JSON.parse(canonicalJson(v)), JSON.parse(JSON.stringify(v)));
    }),
    { seed: 7, numRuns: 300 },
  );
});

test('only top-level nulls and undefineds are dropped from arguments', () => {
  const input = { a: null, b: undefined, c: 0, d: { e: null }, f: '' };
  assert.deepEqual(canonicalArguments(input), { c: 0, d: { e: null }, f: '' });
  assert.deepEqual(input, { a: null, b: undefined, c: 0, d: { e: null }, f: '' });
});

test('a __proto__ argument stays plain data', () => {
  const args = JSON.parse('{"__proto__":{"x":1},"a":1}') as Record<string, unknown>;
  const kept = canonicalArguments(args);
  assert.equal(Object.getPrototypeOf(kept), Object.prototype);
  assert.deepEqual(Object.keys(kept), ['__proto__', 'a']);
});

test('the digest ignores key order and top-level nulls', () => {
  assert.equal(argumentsDigest({ a: 1, b: { x: 1, y: 2 } }), argumentsDigest({ b: { y: 2, x: 1 }, a: 1, c: null }));
  assert.equal(argumentsDigest({}), argumentsDigest({ only: null }));
  assert.equal(argumentsDigest({}), createHash('sha256').update('{}').digest('base64url'), 'no arguments: the SHA-256 of {}');
});

test('the digest sees nested nulls, array order and value types', () => {
  const base = argumentsDigest({ a: { b: null } });
  assert.notEqual(base, argumentsDigest({ a: {} }));
  assert.notEqual(argumentsDigest({ a: [1, 2] }), argumentsDigest({ a: [2, 1] }));
  assert.notEqual(argumentsDigest({ a: 1 }), argumentsDigest({ a: '1' }));
});

test('the digest is unpadded base64url of 32 bytes', () => {
  assert.match(argumentsDigest({ q: 'x' }), /^[A-Za-z0-9_-]{43}$/);
});

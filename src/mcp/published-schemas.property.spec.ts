import assert from 'node:assert/strict';
import { test } from 'node:test';
import Ajv from 'ajv';
import fc from 'fast-check';
import { checkBatch } from '../batch/domain/batch-input';
import { checkReadCall } from '../batch/domain/read-call';
import { checkFindToolInput } from './domain/find-tool-input';
import { FIND_TOOL, INVOKE_READ_TOOL, INVOKE_READ_TOOL_BATCH, PUBLISHED_TOOLS } from './published-tools';

/**
 * The input schema each meta-tool publishes in `tools/list` and the check that enforces it agree:
 * whatever a client validates against the schema is what the router accepts. The checks read the
 * schema's bounds from the same constants; this spec catches the rules that are not a constant
 * (types, required fields, extra fields, how a length is counted).
 *
 * Where a check knows more than a JSON Schema can say, it may only be stricter, and only as its
 * description says: `arguments` at most 20,000 bytes and 8 levels deep, batch ids unique and
 * printable.
 */

const ajv = new Ajv({ strict: false, allErrors: false });
const schemaOf = (name: string) => ajv.compile(PUBLISHED_TOOLS.find((tool) => tool.name === name)!.inputSchema);

/** Strings around the published bounds, in ASCII and beyond the BMP (a length counts characters). */
const text = (max: number) =>
  fc.oneof(
    fc.string({ minLength: 0, maxLength: 3 }),
    fc.string({ minLength: max - 2, maxLength: max + 2 }),
    fc.string({ unit: 'grapheme', minLength: 0, maxLength: 4 }),
    fc.integer({ min: max - 2, max: max + 2 }).map((n) => '😀'.repeat(Math.max(0, n))),
  );
const anyValue = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -3, max: 14 }),
  fc.double({ noNaN: true, min: -2, max: 12 }),
  fc.string({ maxLength: 3 }),
  fc.constant([]),
  fc.constant({}),
);
const small = fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), { maxKeys: 3 });

/** An object with some of `fields`, each a value of its own kind or any other, and maybe an extra field. */
function argsOf(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Record<string, unknown>> {
  const record = fc.record(Object.fromEntries(Object.entries(fields).map(([key, arb]) => [key, fc.oneof(arb, anyValue)])), { requiredKeys: [] });
  return fc
    .tuple(record, fc.option(fc.tuple(fc.constantFrom('extra', 'Query', 'top-k'), anyValue), { nil: undefined }))
    .map(([args, extra]) => (extra === undefined ? args : { ...args, [extra[0]]: extra[1] }));
}

const RUNS = 3000;

test('find_tool: the published schema and the check accept exactly the same arguments', () => {
  const valid = schemaOf(FIND_TOOL);
  fc.assert(
    fc.property(argsOf({ query: text(500), top_k: fc.integer({ min: -1, max: 12 }), server: text(63), include_schema: fc.boolean() }), (args) => {
      assert.equal(checkFindToolInput(args).ok, valid(args), JSON.stringify(args).slice(0, 300));
    }),
    { numRuns: RUNS },
  );
});

test('invoke_read_tool: the schema and the check agree (arguments within their documented size)', () => {
  const valid = schemaOf(INVOKE_READ_TOOL);
  fc.assert(
    fc.property(argsOf({ name: text(200), server: text(63), arguments: small, cursor: fc.string({ maxLength: 3 }) }), (args) => {
      assert.equal(checkReadCall(args).ok, valid(args), JSON.stringify(args).slice(0, 300));
    }),
    { numRuns: RUNS },
  );
});

test('invoke_read_tool_batch: the schema and the checks agree on the batch and its entries', () => {
  const valid = schemaOf(INVOKE_READ_TOOL_BATCH);
  const entry = argsOf({
    name: text(200),
    server: fc.string({ maxLength: 4 }),
    arguments: small,
    id: fc.string({ minLength: 1, maxLength: 3, unit: 'grapheme-ascii' }),
  });
  fc.assert(
    fc.property(argsOf({ calls: fc.array(entry, { minLength: 0, maxLength: 27 }) }), (args) => {
      const batch = checkBatch(args);
      // The router's own verdict: the batch is taken and every entry passes the call checks.
      const accepted = batch.ok && batch.entries.every((e) => e.idError === undefined && checkReadCall(e.call).ok);
      const unique = batch.ok || batch.code !== 'duplicate_id';
      if (unique) assert.equal(accepted, valid(args), JSON.stringify(args).slice(0, 300));
      else assert.equal(accepted, false);
    }),
    { numRuns: RUNS },
  );
});

import { hash } from 'node:crypto';
import { isJsonObject } from '../../common/json-object';

/**
 * JSON text with every object's keys sorted (arrays keep their order), so that two values that
 * differ only in key order serialize identically. Follows `JSON.stringify` otherwise: `toJSON` is
 * honoured, `undefined`/functions/symbols are skipped in objects and become `null` in arrays,
 * non-finite numbers become `null`. A top-level value that JSON cannot represent yields `'null'`.
 *
 * @throws TypeError on a circular structure or a BigInt, as `JSON.stringify` does.
 */
export function canonicalJson(value: unknown): string {
  return write(value, '', new Set()) ?? 'null';
}

/**
 * The arguments as the cursor binding sees them: top-level keys whose value is `null` or
 * `undefined` are dropped (architecture §6: "top-level nulls do not matter", since many clients send an
 * omitted optional argument as `null`). Nested nulls are data and are kept. Returns a new object.
 */
export function canonicalArguments(args: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(args)) {
    const value = args[key];
    if (value === null || value === undefined) continue;
    // defineProperty, not assignment: a `__proto__` key from JSON.parse must stay plain data.
    Object.defineProperty(kept, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return kept;
}

/** The digest of no arguments, the most common call of all, worked out once. */
const NO_ARGUMENTS_DIGEST = hash('sha256', '{}', 'base64url');

/**
 * Base64url (unpadded) SHA-256 of the canonical arguments: what a cursor stores instead of the
 * argument values themselves (architecture §6: a cursor holds no argument values). Every call
 * computes it (its audit line carries it): the one-shot `hash` costs a third of a `createHash`
 * object's ~2.5 µs on arguments this small.
 */
export function argumentsDigest(args: Record<string, unknown>): string {
  const json = canonicalJson(canonicalArguments(args));
  return json === '{}' ? NO_ARGUMENTS_DIGEST : hash('sha256', json, 'base64url');
}

function write(input: unknown, key: string, ancestors: Set<object>): string | undefined {
  const value = applyToJson(input, key);
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    enter(value, ancestors);
    const text = `[${value.map((item, i) => write(item, String(i), ancestors) ?? 'null').join(',')}]`;
    ancestors.delete(value);
    return text;
  }
  if (isJsonObject(value)) {
    if (value instanceof Number || value instanceof String || value instanceof Boolean) return JSON.stringify(value);
    enter(value, ancestors);
    const parts: string[] = [];
    for (const k of Object.keys(value).sort()) {
      const member = write(value[k], k, ancestors);
      if (member !== undefined) parts.push(`${JSON.stringify(k)}:${member}`);
    }
    ancestors.delete(value);
    return `{${parts.join(',')}}`;
  }
  switch (typeof value) {
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      // string, number, boolean, bigint: JSON.stringify has the exact escaping and number rules.
      return JSON.stringify(value);
  }
}

/** `value.toJSON(key)` when the value has that method, as JSON.stringify calls it; else the value. */
function applyToJson(value: unknown, key: string): unknown {
  // A bigint's methods are its box's (BigInt.prototype.toJSON, when a program defines one).
  const holder: unknown = typeof value === 'bigint' ? Object(value) : value;
  if (typeof holder !== 'object' || holder === null || !('toJSON' in holder)) return value;
  const { toJSON } = holder;
  return typeof toJSON === 'function' ? toJSON.call(value, key) : value;
}

function enter(value: object, ancestors: Set<object>): void {
  if (ancestors.has(value)) throw new TypeError('canonicalJson: circular structure');
  ancestors.add(value);
}

import { isJsonObject, type JsonObject } from '../../common/json-object';
import { MAX_PATH_BYTES, MAX_PATH_DEPTH, pathBytes } from '../../cursor/domain/position';
import { jsonBytes, minJsonBytes } from './page-search';

// Finding, reading and replacing the parts of structuredContent that boundResult (./bounding)
// pages: arrays and long strings, each named by its path of object keys from the root.

/** A path of object keys (numbers are array indexes) from the structuredContent root. */
export type StructuredPath = readonly (string | number)[];

// MCP backends name their own pagination token in one of these ways (architecture §6).
export const BACKEND_CURSOR_FIELDS: readonly string[] = ['nextCursor', 'next_cursor', 'cursor', 'next'];

export interface FoundArray {
  path: string[];
  array: unknown[];
}

export interface FoundString {
  path: string[];
  text: string;
}

/**
 * The non-empty arrays and strings reachable through objects only (what sits inside an array is
 * reached by paging that array, or by the JSON fallback). A top-level backend pagination token is
 * never a string to cut: it must reach the client whole.
 */
export function findCuttable(root: Record<string, unknown>): { arrays: FoundArray[]; strings: FoundString[] } {
  const arrays: FoundArray[] = [];
  const strings: FoundString[] = [];
  const walk = (node: Record<string, unknown>, path: string[]): void => {
    for (const key of Object.keys(node)) {
      const value = node[key];
      const at = [...path, key];
      if (at.length > MAX_PATH_DEPTH || pathBytes(at) > MAX_PATH_BYTES) continue;
      if (Array.isArray(value)) {
        if (value.length > 0) arrays.push({ path: at, array: value });
      } else if (typeof value === 'string') {
        if (value.length > 0 && !(path.length === 0 && BACKEND_CURSOR_FIELDS.includes(key))) strings.push({ path: at, text: value });
      } else if (isJsonObject(value)) {
        walk(value, at);
      }
    }
  };
  walk(root, []);
  return { arrays, strings };
}

/** The array to page: over the item limit only the one that breaks it can fix it; else the biggest. */
export function pickArray(arrays: FoundArray[], maxItems: number): FoundArray {
  const over = arrays.filter((a) => a.array.length > maxItems);
  return largest(over.length > 0 ? over : arrays, (a) => a.array);
}

/** The string to page: the one with the largest JSON-escaped size. */
export function pickString(strings: FoundString[]): FoundString {
  return largest(strings, (s) => s.text);
}

/** True when `a` serializes larger than `b`: costs O(size of `b`), however large `a` is. */
export function serializesLarger(a: unknown, b: unknown): boolean {
  const size = jsonBytes(b);
  return minJsonBytes(a, size) > size || jsonBytes(a) > size;
}

function largest<T>(pool: T[], value: (t: T) => unknown): T {
  let best = pool[0];
  if (pool.length === 1) return best;
  let bestSize = -1;
  for (const candidate of pool) {
    const size = jsonBytes(value(candidate));
    if (size > bestSize) {
      best = candidate;
      bestSize = size;
    }
  }
  return best;
}

export function arrayAt(root: Record<string, unknown>, path: StructuredPath): unknown[] | undefined {
  const node = valueAt(root, path);
  return Array.isArray(node) ? node : undefined;
}

export function stringAt(root: Record<string, unknown>, path: StructuredPath): string | undefined {
  const node = valueAt(root, path);
  return typeof node === 'string' ? node : undefined;
}

function valueAt(root: Record<string, unknown>, path: StructuredPath): unknown {
  let node: unknown = root;
  for (const step of path) {
    if (typeof step !== 'string' || !isJsonObject(node) || !Object.hasOwn(node, step)) return undefined;
    node = node[step];
  }
  return node;
}

/** A copy of `node` with the value at `path` (which {@link valueAt} resolved) replaced. */
export function replaceAt(node: Record<string, unknown>, path: StructuredPath, depth: number, value: unknown): Record<string, unknown> {
  const key = String(path[depth]);
  const child = depth === path.length - 1 ? value : replaceAt(objectAt(node, key), path, depth + 1, value);
  const copy = { ...node };
  // defineProperty keeps the key's place and treats a `__proto__` key as plain data.
  Object.defineProperty(copy, key, { value: child, enumerable: true, writable: true, configurable: true });
  return copy;
}

/**
 * Code unit offset in JSON.stringify(root) where element `index` of `array`, the array at `path`
 * ({@link arrayAt}), begins, so the JSON fallback resumes exactly where the element pages stopped
 * (no overlap, no gap).
 */
export function elementOffset(root: Record<string, unknown>, path: StructuredPath, array: readonly unknown[], index: number): number {
  let offset = valueOffset(root, path) + 1;
  for (let i = 0; i < index; i++) offset += (JSON.stringify(array[i]) ?? 'null').length + 1;
  return offset;
}

/**
 * Code unit offset in JSON.stringify(root) where code unit `offset` of `text`, the string at `path`
 * ({@link stringAt}), begins. JSON escapes code unit by code unit, surrogate pairs aside, and
 * `offset` never splits a pair, so the escaped prefix is exactly the prefix of the escaped string.
 */
export function stringOffset(root: Record<string, unknown>, path: StructuredPath, text: string, offset: number): number {
  return valueOffset(root, path) + JSON.stringify(text.slice(0, offset)).length - 1;
}

/** Code unit offset in JSON.stringify(root) where the value at `path` begins. */
function valueOffset(root: Record<string, unknown>, path: StructuredPath): number {
  let offset = 0;
  let node: Record<string, unknown> = root;
  for (let depth = 0; depth < path.length; depth++) {
    const key = String(path[depth]);
    offset += 1;
    for (const k of Object.keys(node)) {
      if (k === key) break;
      const member = JSON.stringify(node[k]);
      if (member !== undefined) offset += JSON.stringify(k).length + 1 + member.length + 1;
    }
    offset += JSON.stringify(key).length + 1;
    if (depth < path.length - 1) node = objectAt(node, key);
  }
  return offset;
}

/**
 * The object at `key` on the way down a path that {@link valueAt} resolved, which passes through
 * objects only; anything else is a caller's bug, not data.
 */
function objectAt(node: JsonObject, key: string): JsonObject {
  const child = node[key];
  if (!isJsonObject(child)) throw new Error(`structured path step ${JSON.stringify(key)} is not an object`);
  return child;
}

export function samePath(a: StructuredPath, b: StructuredPath): boolean {
  return a.length === b.length && a.every((step, i) => step === b[i]);
}

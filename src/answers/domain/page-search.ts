import { Buffer } from 'node:buffer';
import { isJsonObject, type JsonObject } from '../../common/json-object';

// The search and size estimates that boundResult (./bounding) pages with. Pure, no MCP types.

/**
 * An estimate of the serialized size of the first k pieces, used only to aim the search: every
 * decision is taken on `measure`, so a poor estimate costs probes, never correctness.
 */
export interface Axis {
  at(k: number): number;
  /** Largest k in [lo, hi] with at(k) <= w; lo when there is none. */
  inverse(w: number, lo: number, hi: number): number;
}

export const unitAxis: Axis = {
  at: (k) => k,
  inverse: (w, lo, hi) => Math.min(hi, Math.max(lo, Math.floor(w))),
};

/** Prefix sums of piece sizes, computed lazily so a huge array costs only what a page can hold. */
export function prefixAxis(size: (i: number) => number): Axis {
  const prefix = [0];
  const extendTo = (k: number): void => {
    for (let i = prefix.length - 1; i < k; i++) prefix.push(prefix[i] + size(i));
  };
  return {
    at(k) {
      extendTo(k);
      return prefix[k];
    },
    inverse(w, lo, hi) {
      extendTo(lo);
      while (prefix.length - 1 < hi && prefix[prefix.length - 1] <= w) extendTo(prefix.length);
      let a = lo;
      let b = Math.min(hi, prefix.length - 1);
      while (a < b) {
        const mid = Math.ceil((a + b) / 2);
        if (prefix[mid] <= w) a = mid;
        else b = mid - 1;
      }
      return a;
    },
  };
}

/**
 * The largest k in [1, max] whose page costs at most `limit`, or 0 when not even the smallest
 * valid k does. Assumes cost grows with k. Interpolates on the axis (a near-linear measure needs
 * 2 to 4 probes, each the size of a page rather than of the whole result) and falls back to
 * bisection, or doubling while no upper probe exists, when interpolation stops halving the range.
 */
export function largestFitting(limit: number, max: number, cost: (k: number) => number, axis: Axis, valid: (k: number) => boolean = () => true): number {
  let first = 1;
  while (first <= max && !valid(first)) first += 1;
  if (first > max) return 0;
  const firstCost = cost(first);
  if (!(firstCost <= limit)) return 0;
  let lo = first;
  let loCost = firstCost;
  let hi = max + 1;
  let hiCost: number | undefined;
  let stale = 0;
  while (hi - lo > 1) {
    let k: number | undefined;
    if (stale < 2) {
      const wLo = axis.at(lo);
      const scale = hiCost !== undefined ? (hiCost - loCost) / (axis.at(hi) - wLo) : lo > first ? (loCost - firstCost) / (wLo - axis.at(first)) : 1;
      if (scale > 0 && Number.isFinite(scale)) k = axis.inverse(wLo + (limit - loCost) / scale, lo + 1, hi - 1);
    }
    k ??= hiCost === undefined ? Math.min(hi - 1, lo * 2) : Math.floor((lo + hi) / 2);
    k = snap(k, lo, hi, valid);
    if (k === undefined) break;
    const width = hi - lo;
    const c = cost(k);
    if (c <= limit) {
      lo = k;
      loCost = c;
    } else {
      hi = k;
      hiCost = c;
    }
    stale = hi - lo > width / 2 ? stale + 1 : 0;
  }
  return lo;
}

function snap(k: number, lo: number, hi: number, valid: (k: number) => boolean): number | undefined {
  const at = Math.min(hi - 1, Math.max(lo + 1, k));
  if (valid(at)) return at;
  if (at - 1 > lo && valid(at - 1)) return at - 1;
  if (at + 1 < hi && valid(at + 1)) return at + 1;
  return undefined;
}

/** A text may be cut before index i unless that would split a surrogate pair. */
export function isCutPoint(text: string, i: number): boolean {
  const before = text.charCodeAt(i - 1);
  const after = text.charCodeAt(i);
  return !(before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff);
}

/**
 * How many leading pieces could fit at all, judged by {@link minJsonBytes}: it keeps every probe
 * near the budget in size, however large the pieces behind it are.
 */
export function plausibleCount(max: number, limit: number, piece: (i: number) => unknown): number {
  let total = 0;
  for (let i = 0; i < max; i++) {
    total += minJsonBytes(piece(i), limit - total) + 1;
    if (total > limit) return i;
  }
  return max;
}

/**
 * A lower bound of the UTF-8 size of `JSON.stringify(value)`, counting stopped once past `cap`.
 * Every code unit takes at least one byte and every value at least one character, so the walk
 * costs O(min(size, cap)) where serializing would cost the whole size.
 */
export function minJsonBytes(value: unknown, cap: number): number {
  let total = 0;
  const visit = (v: unknown): void => {
    if (typeof v === 'string') {
      total += v.length + 2;
    } else if (Array.isArray(v)) {
      total += 1;
      for (let i = 0; i < v.length && total <= cap; i++) {
        total += 1;
        visit(v[i]);
      }
    } else if (isJsonObject(v) && isPlainPrototype(v)) {
      total += 2;
      for (const key of Object.keys(v)) {
        if (total > cap) return;
        const member = v[key];
        // JSON.stringify skips these members, so they must not count.
        if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
        total += key.length + 3;
        visit(member);
      }
    } else {
      // Numbers, booleans, null, and objects with their own serialization: at least one byte.
      total += 1;
    }
  };
  visit(value);
  return total;
}

function isPlainPrototype(v: JsonObject): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && typeof v.toJSON !== 'function';
}

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null', 'utf8');
}

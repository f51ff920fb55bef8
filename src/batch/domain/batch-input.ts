import { characters } from './read-call';
import { isJsonObject } from '../../common/json-object';
/** architecture §5: a batch holds 1 to 25 calls. */
export const MAX_BATCH_CALLS = 25;
export const MAX_ID_CHARS = 100;

/** Why a whole batch is refused before anything is dispatched. */
export type BatchRejectionCode = 'invalid_batch' | 'too_many_calls' | 'duplicate_id';

export interface BatchEntry {
  index: number;
  /** The entry's id: its own when well-formed, else its index as a decimal string. */
  id: string;
  /** The entry without its id, for the read seam to validate; absent when the id was malformed. */
  call?: unknown;
  /** Set when the id itself was malformed: the entry is `invalid_call` without being dispatched. */
  idError?: string;
  /** The requested tool name, when it is a string (for reporting only). */
  name: string;
}

export type BatchCheck = { ok: true; entries: BatchEntry[] } | { ok: false; code: BatchRejectionCode; message: string };

/** Printable: no C0/C1 controls, no lone surrogates; ids go into logs and JSON keys of clients. */
const PRINTABLE = /^(?:[\u0020-\u007e\u00a0-\ud7ff\ue000-\uffff]|[\ud800-\udbff][\udc00-\udfff])+$/;

/**
 * Splits a batch into entries and applies the whole-batch rules of architecture §5. Per-entry rules are
 * the read seam's; only ids are judged here, since uniqueness spans entries. Messages never
 * contain values from the request.
 */
export function checkBatch(args: Record<string, unknown>): BatchCheck {
  const extra = Object.keys(args).filter((k) => k !== 'calls');
  if (extra.length > 0) return { ok: false, code: 'invalid_batch', message: 'unknown field(s); the batch takes only `calls`' };
  const { calls } = args;
  if (!Array.isArray(calls)) return { ok: false, code: 'invalid_batch', message: '`calls` must be a list of 1..25 calls' };
  if (calls.length === 0) return { ok: false, code: 'invalid_batch', message: '`calls` is empty; give 1..25 calls' };
  if (calls.length > MAX_BATCH_CALLS) {
    return { ok: false, code: 'too_many_calls', message: `\`calls\` has more than ${MAX_BATCH_CALLS} entries; split the batch` };
  }
  const entries = calls.map(toEntry);
  const firstIndexOf = new Map<string, number>();
  for (const entry of entries) {
    const earlier = firstIndexOf.get(entry.id);
    if (earlier !== undefined) {
      return { ok: false, code: 'duplicate_id', message: `entries ${earlier} and ${entry.index} have the same id; ids (default: the index) must be unique` };
    }
    firstIndexOf.set(entry.id, entry.index);
  }
  return { ok: true, entries };
}

function toEntry(raw: unknown, index: number): BatchEntry {
  const fallback = String(index);
  if (!isJsonObject(raw)) return { index, id: fallback, call: raw, name: '' };
  const name = typeof raw.name === 'string' ? raw.name.slice(0, 200) : '';
  if (!('id' in raw)) return { index, id: fallback, call: raw, name };
  const { id, ...call } = raw;
  if (typeof id !== 'string' || id.length < 1 || characters(id) > MAX_ID_CHARS || !PRINTABLE.test(id)) {
    return { index, id: fallback, name, idError: `\`id\` must be a string of 1..${MAX_ID_CHARS} printable characters` };
  }
  return { index, id, call, name };
}

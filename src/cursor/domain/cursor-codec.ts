import { Buffer } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { isJsonObject } from '../../common/json-object';
import { isCursorPath, type Position } from './position';

/**
 * What a cursor binds (architecture §6): the backend, tool and digest of the canonical arguments (never
 * the argument values), optionally the caller, where the next page starts and when it expires.
 */
export interface CursorClaims {
  backend: string;
  tool: string;
  argsDigest: string;
  principal?: string;
  position: Position;
  /** Unix seconds; the cursor is refused from this second on. */
  expiresAt: number;
}

/** Why a cursor was refused; every one of them answers `invalid_cursor` (architecture §6). */
export type CursorRejection = 'malformed' | 'bad_signature' | 'expired' | 'mismatch';

/** The call a cursor must belong to (architecture §6): never argument values, only their digest. */
export interface CursorBinding {
  backend: string;
  tool: string;
  argsDigest: string;
  principal?: string;
}

/** Tokens longer than this are refused unread, and never issued. */
export const MAX_CURSOR_LENGTH = 4096;

// Bump when the payload changes shape; older cursors then read as malformed, which is safe since
// a cursor lives only CURSOR_TTL_SECONDS.
const VERSION = 1;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const PAYLOAD_KEYS = new Set(['v', 'b', 't', 'd', 'p', 'e', 'o']);

// Compact on purpose: the token travels back and forth through a model's context.
type WirePosition = ['a', (string | number)[], number] | ['s', (string | number)[], number] | ['c', number, number] | ['j', number];

/**
 * `base64url(JSON payload) + '.' + base64url(HMAC-SHA256(key, first part))`.
 *
 * @throws TypeError when the claims could not be decoded back (a programming error), RangeError
 *   when the token would exceed {@link MAX_CURSOR_LENGTH}.
 */
export function encodeCursor(claims: CursorClaims, key: Buffer): string {
  const payload = {
    v: VERSION,
    b: claims.backend,
    t: claims.tool,
    d: claims.argsDigest,
    ...(claims.principal !== undefined ? { p: claims.principal } : {}),
    e: claims.expiresAt,
    o: toWire(claims.position),
  };
  if (claimsFromPayload(payload) === undefined) throw new TypeError('encodeCursor: claims out of shape');
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  const token = `${body}.${sign(body, key).toString('base64url')}`;
  if (token.length > MAX_CURSOR_LENGTH) throw new RangeError('encodeCursor: cursor longer than 4096 characters');
  return token;
}

/**
 * Reads and verifies a cursor. Never throws: anything that is not a cursor of this shape is
 * `malformed`, a wrong MAC `bad_signature`, a past `expiresAt` (at or before `nowSeconds`) `expired`.
 */
export function decodeCursor(token: string, key: Buffer, nowSeconds: number): { ok: true; claims: CursorClaims } | { ok: false; reason: CursorRejection } {
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_CURSOR_LENGTH) return reject('malformed');
  const dot = token.indexOf('.');
  if (dot < 0 || dot !== token.lastIndexOf('.')) return reject('malformed');
  const body = token.slice(0, dot);
  const bodyBytes = segmentBytes(body);
  const mac = segmentBytes(token.slice(dot + 1));
  if (bodyBytes === undefined || mac === undefined) return reject('malformed');
  const claims = claimsFromPayload(parseJson(bodyBytes));
  if (claims === undefined) return reject('malformed');
  const expected = sign(body, key);
  // timingSafeEqual throws on unequal lengths, so the length is compared first.
  if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) return reject('bad_signature');
  if (nowSeconds >= claims.expiresAt) return reject('expired');
  return { ok: true, claims };
}

/**
 * Decodes a cursor and checks it belongs to this call (same backend, tool, argument digest and
 * principal, an absent principal matching only an absent one). On success, where to resume.
 */
export function checkCursor(
  token: string,
  key: Buffer,
  nowSeconds: number,
  expected: CursorBinding,
): { ok: true; position: Position } | { ok: false; reason: CursorRejection } {
  const decoded = decodeCursor(token, key, nowSeconds);
  if (!decoded.ok) return decoded;
  const { claims } = decoded;
  if (
    claims.backend !== expected.backend ||
    claims.tool !== expected.tool ||
    claims.argsDigest !== expected.argsDigest ||
    claims.principal !== expected.principal
  ) {
    return reject('mismatch');
  }
  return { ok: true, position: claims.position };
}

function reject(reason: CursorRejection): { ok: false; reason: CursorRejection } {
  return { ok: false, reason };
}

function sign(body: string, key: Buffer): Buffer {
  return createHmac('sha256', key).update(body, 'ascii').digest();
}

/**
 * Base64url bytes, accepting only the canonical spelling: Buffer's decoder ignores stray
 * characters and unused trailing bits, which would let an edited token verify.
 */
function segmentBytes(segment: string): Buffer | undefined {
  if (!BASE64URL.test(segment)) return undefined;
  const bytes = Buffer.from(segment, 'base64url');
  return bytes.toString('base64url') === segment ? bytes : undefined;
}

function parseJson(bytes: Buffer): unknown {
  try {
    const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return value;
  } catch {
    // Undecodable bytes or text are what `malformed` reports; nothing else is lost here.
    return undefined;
  }
}

function claimsFromPayload(p: unknown): CursorClaims | undefined {
  // A guard, not a schema: every page of a paged answer decodes one of these.
  if (!isJsonObject(p)) return undefined;
  if (!Object.keys(p).every((k) => PAYLOAD_KEYS.has(k))) return undefined;
  if (p.v !== VERSION || !isName(p.b) || !isName(p.t) || !isName(p.d) || !isCount(p.e)) return undefined;
  if (p.p !== undefined && typeof p.p !== 'string') return undefined;
  const position = fromWire(p.o);
  if (position === undefined) return undefined;
  return {
    backend: p.b,
    tool: p.t,
    argsDigest: p.d,
    ...(p.p !== undefined ? { principal: p.p } : {}),
    position,
    expiresAt: p.e,
  };
}

function toWire(position: Position): WirePosition {
  switch (position.kind) {
    case 'array':
      return ['a', position.path, position.index];
    case 'string':
      return ['s', position.path, position.offset];
    case 'content':
      return ['c', position.block, position.offset];
    case 'json':
      return ['j', position.offset];
  }
}

function fromWire(o: unknown): Position | undefined {
  if (!Array.isArray(o)) return undefined;
  if (o[0] === 'a' && o.length === 3 && isCursorPath(o[1]) && isCount(o[2])) {
    return { kind: 'array', path: o[1], index: o[2] };
  }
  if (o[0] === 's' && o.length === 3 && isCursorPath(o[1]) && isCount(o[2])) {
    return { kind: 'string', path: o[1], offset: o[2] };
  }
  if (o[0] === 'c' && o.length === 3 && isCount(o[1]) && isCount(o[2])) {
    return { kind: 'content', block: o[1], offset: o[2] };
  }
  if (o[0] === 'j' && o.length === 2 && isCount(o[1])) return { kind: 'json', offset: o[1] };
  return undefined;
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function isName(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0;
}

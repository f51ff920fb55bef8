import { Buffer } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * What a write's confirmation token binds (architecture §11.2): who may use it, for which tool and which
 * canonical arguments (their digest, never their values), until when; `id` makes it single use.
 * Signed like a cursor (./cursor-codec), with the same key, but its payload can never read as a
 * cursor's nor a cursor's as its own: each refuses the other's fields.
 */
export interface ConfirmationClaims {
  id: string;
  principal: string;
  backend: string;
  tool: string;
  argsDigest: string;
  /** Unix seconds; the token is refused from this second on. */
  expiresAt: number;
}

/** The call a token must be used for. */
export type ConfirmationBinding = Omit<ConfirmationClaims, 'id' | 'expiresAt'>;

export type ConfirmationRejection = 'malformed' | 'bad_signature' | 'expired' | 'mismatch' | 'used';

/** Tokens longer than this are refused unread. */
export const MAX_CONFIRMATION_LENGTH = 2048;

const KIND = 'confirm';
const VERSION = 1;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const PAYLOAD_KEYS = ['k', 'v', 'i', 'p', 'b', 't', 'd', 'e'];

/** `base64url(JSON payload) + '.' + base64url(HMAC-SHA256(key, first part))`. */
export function encodeConfirmation(claims: ConfirmationClaims, key: Buffer): string {
  const payload = { k: KIND, v: VERSION, i: claims.id, p: claims.principal, b: claims.backend, t: claims.tool, d: claims.argsDigest, e: claims.expiresAt };
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${sign(body, key).toString('base64url')}`;
}

/** Verifies a token and checks it belongs to this call. Never throws. */
export function checkConfirmation(
  token: string,
  key: Buffer,
  nowSeconds: number,
  expected: ConfirmationBinding,
): { ok: true; claims: ConfirmationClaims } | { ok: false; reason: ConfirmationRejection } {
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_CONFIRMATION_LENGTH) return { ok: false, reason: 'malformed' };
  const parts = token.split('.');
  if (parts.length !== 2 || !parts.every((p) => BASE64URL.test(p))) return { ok: false, reason: 'malformed' };
  const [body, macText] = parts;
  const mac = Buffer.from(macText, 'base64url');
  const expectedMac = sign(body, key);
  if (mac.toString('base64url') !== macText || mac.length !== expectedMac.length || !timingSafeEqual(mac, expectedMac)) {
    return { ok: false, reason: 'bad_signature' };
  }
  const claims = claimsOf(parseJson(Buffer.from(body, 'base64url').toString('utf8')));
  if (claims === undefined) return { ok: false, reason: 'malformed' };
  if (nowSeconds >= claims.expiresAt) return { ok: false, reason: 'expired' };
  if (
    claims.principal !== expected.principal ||
    claims.backend !== expected.backend ||
    claims.tool !== expected.tool ||
    claims.argsDigest !== expected.argsDigest
  ) {
    return { ok: false, reason: 'mismatch' };
  }
  return { ok: true, claims };
}

function sign(body: string, key: Buffer): Buffer {
  return createHmac('sha256', key).update(body, 'ascii').digest();
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // A body that is not JSON is `malformed`; nothing else is lost here.
    return undefined;
  }
}

function claimsOf(payload: unknown): ConfirmationClaims | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const p = payload as Record<string, unknown>;
  const keys = Object.keys(p);
  if (keys.length !== PAYLOAD_KEYS.length || !PAYLOAD_KEYS.every((k) => keys.includes(k))) return undefined;
  if (p.k !== KIND || p.v !== VERSION) return undefined;
  if (![p.i, p.p, p.b, p.t, p.d].every((v) => typeof v === 'string' && v.length > 0)) return undefined;
  if (typeof p.e !== 'number' || !Number.isSafeInteger(p.e)) return undefined;
  return { id: p.i as string, principal: p.p as string, backend: p.b as string, tool: p.t as string, argsDigest: p.d as string, expiresAt: p.e };
}

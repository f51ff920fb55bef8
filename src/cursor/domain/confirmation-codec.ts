import { Buffer } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * What a write's confirmation token binds (architecture §11.2): who may use it, for which tool and which
 * canonical arguments (their digest, never their values), until when; `id` makes it single use, and
 * `scope` names the record of used ids that vouches for it (see UsedConfirmations.scope).
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
  /** The record of used ids it was issued under: only that record can tell whether it was used. */
  scope: string;
}

/** The call a token must be used for. */
export type ConfirmationBinding = Omit<ConfirmationClaims, 'id' | 'expiresAt' | 'scope'>;

/**
 * Why a token was refused. `foreign`: signed with this key but issued under another record of used
 * ids (another process with the memory record, say before a restart), which cannot vouch for it.
 */
export type ConfirmationRejection = 'malformed' | 'bad_signature' | 'expired' | 'mismatch' | 'foreign' | 'used';

/** Tokens longer than this are refused unread. */
export const MAX_CONFIRMATION_LENGTH = 2048;

const KIND = 'confirm';
const VERSION = 2;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const name = z.string().min(1);

/**
 * The signed payload: exactly these fields (a cursor's `o` or any other field refuses it), names
 * not empty, the expiry a safe integer.
 */
const ConfirmationPayload = z
  .strictObject({ k: z.literal(KIND), v: z.literal(VERSION), i: name, p: name, b: name, t: name, d: name, e: z.int(), s: name })
  .transform((p): ConfirmationClaims => ({ id: p.i, principal: p.p, backend: p.b, tool: p.t, argsDigest: p.d, expiresAt: p.e, scope: p.s }));

/** `base64url(JSON payload) + '.' + base64url(HMAC-SHA256(key, first part))`. */
export function encodeConfirmation(claims: ConfirmationClaims, key: Buffer): string {
  const payload = {
    k: KIND,
    v: VERSION,
    i: claims.id,
    p: claims.principal,
    b: claims.backend,
    t: claims.tool,
    d: claims.argsDigest,
    e: claims.expiresAt,
    s: claims.scope,
  };
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${sign(body, key).toString('base64url')}`;
}

/**
 * Verifies a token and checks it belongs to this call and to the record `scope` (the one that can
 * tell whether it was used). Never throws.
 */
export function checkConfirmation(
  token: string,
  key: Buffer,
  nowSeconds: number,
  expected: ConfirmationBinding,
  scope: string,
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
  const parsed = ConfirmationPayload.safeParse(parseJson(Buffer.from(body, 'base64url').toString('utf8')));
  if (!parsed.success) return { ok: false, reason: 'malformed' };
  const claims = parsed.data;
  if (nowSeconds >= claims.expiresAt) return { ok: false, reason: 'expired' };
  if (
    claims.principal !== expected.principal ||
    claims.backend !== expected.backend ||
    claims.tool !== expected.tool ||
    claims.argsDigest !== expected.argsDigest
  ) {
    return { ok: false, reason: 'mismatch' };
  }
  if (claims.scope !== scope) return { ok: false, reason: 'foreign' };
  return { ok: true, claims };
}

function sign(body: string, key: Buffer): Buffer {
  return createHmac('sha256', key).update(body, 'ascii').digest();
}

function parseJson(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch {
    // A body that is not JSON is `malformed`; nothing else is lost here.
    return undefined;
  }
}

import { hash, timingSafeEqual } from 'node:crypto';

/** A configured key, its hash decoded once at boot. */
export interface ApiKeyEntry {
  readonly principal: string;
  readonly groups: readonly string[];
  readonly hash: Buffer;
}

export function apiKeyEntry(key: { principal: string; sha256: string; groups: readonly string[] }): ApiKeyEntry {
  return { principal: key.principal, groups: [...key.groups], hash: Buffer.from(key.sha256, 'hex') };
}

/**
 * The entry whose hash is the SHA-256 of `presented`, or undefined. Compares against every entry
 * with `timingSafeEqual` and never stops early, so the time taken says nothing about which entry,
 * if any, matched or how much of a hash did. Hashing first makes every comparison the same length
 * whatever the caller sends.
 */
export function matchApiKey(presented: string, entries: readonly ApiKeyEntry[]): ApiKeyEntry | undefined {
  // One-shot: this runs on every request of an API-key deployment.
  const digest = hash('sha256', presented, 'buffer');
  let found: ApiKeyEntry | undefined;
  for (const entry of entries) {
    const equal = timingSafeEqual(digest, entry.hash);
    found = equal && found === undefined ? entry : found;
  }
  return found;
}

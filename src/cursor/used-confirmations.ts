/**
 * What claiming a confirmation id answered: the first claim wins (`claimed`), any later one is
 * `used`; `unavailable` when the shared record could not be asked (the write is then refused).
 */
export type ClaimResult = 'claimed' | 'used' | 'unavailable';

/** What looking an id up answered, without claiming it. */
export type LookupResult = 'unused' | 'used' | 'unavailable';

/**
 * The record of confirmation ids already used (architecture §11.2): one claim per id, for as long as the
 * token could still be accepted. In memory for one process; in Redis when `rateLimit.store` is
 * `redis`, so a token used on one replica is refused on every other.
 */
export interface UsedConfirmations {
  /**
   * Which tokens this record can vouch for, written into each token it issues: a memory record
   * only for the tokens its own process issued (a random id per process, so a restart, which
   * empties the record, never makes a used token good again), a shared record for every replica
   * that shares it.
   */
  readonly scope: string;
  /** Whether `id` was used, claiming nothing: a refusal before dispatch costs no rate-limit token. Never rejects. */
  lookup(id: string): Promise<LookupResult>;
  /** Claims `id` for `ttlMs` (the token's remaining validity and a margin). Never rejects. */
  claim(id: string, ttlMs: number): Promise<ClaimResult>;
}

export const USED_CONFIRMATIONS = Symbol('centralmcp-router:used-confirmations');

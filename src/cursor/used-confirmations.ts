/**
 * What claiming a confirmation id answered: the first claim wins (`claimed`), any later one is
 * `used`; `unavailable` when the shared record could not be asked (the write is then refused).
 */
export type ClaimResult = 'claimed' | 'used' | 'unavailable';

/**
 * The record of confirmation ids already used (architecture §11.2): one claim per id, for as long as the
 * token could still be accepted. In memory for one replica; in Redis when `rateLimit.store` is
 * `redis`, so a token used on one replica is refused on every other.
 */
export interface UsedConfirmations {
  /** Claims `id` for `ttlMs` (the token's remaining validity and a margin). Never rejects. */
  claim(id: string, ttlMs: number): Promise<ClaimResult>;
}

export const USED_CONFIRMATIONS = Symbol('centralmcp-router:used-confirmations');

/** Principals whose last `find_tool` is remembered; past it the oldest goes first. */
const MAX_PENDING = 10_000;

/**
 * Each principal's last `find_tool` request (its learned words) until that principal's next
 * successful call, within a window: the pair learning from use records. A request pairs with one
 * call at most, and a newer request replaces an older one.
 */
export class PendingFinds {
  private readonly byPrincipal = new Map<string, { words: readonly string[]; atMs: number }>();

  constructor(private readonly windowMs: number) {}

  found(principal: string, words: readonly string[], nowMs: number): void {
    this.byPrincipal.delete(principal);
    this.byPrincipal.set(principal, { words, atMs: nowMs });
    if (this.byPrincipal.size > MAX_PENDING) this.byPrincipal.delete(this.byPrincipal.keys().next().value as string);
  }

  /** The words of the principal's last request if it is within the window; it is then used up. */
  take(principal: string, nowMs: number): readonly string[] | undefined {
    const last = this.byPrincipal.get(principal);
    if (last === undefined) return undefined;
    this.byPrincipal.delete(principal);
    return nowMs - last.atMs <= this.windowMs ? last.words : undefined;
  }
}

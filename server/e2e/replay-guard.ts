// Refuses a sealed relayed call that was already run (a bridge replaying a captured request) or that is stale. Each
// sealed request carries a fresh random id and the time it was made: ids are remembered for the accepted window, so
// a replay inside it is caught by id and one outside it by time. Bounded: past `capacity` ids in the window the
// oldest go and the window shrinks to what is remembered (older requests are then refused as stale).
export const REQUEST_WINDOW_MS = 5 * 60 * 1000;
const CAPACITY = 100_000;

export type ReplayVerdict = "fresh" | "replayed" | "stale";

export class ReplayGuard {
  /** request id → when it was accepted; Map keeps insertion order, so the oldest come first. */
  private readonly seen = new Map<string, number>();
  /** Requests made before this are stale (moves up when ids are evicted for capacity). */
  private floor = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly now: () => number,
    private readonly windowMs = REQUEST_WINDOW_MS,
    private readonly capacity = CAPACITY,
  ) {}

  check(id: string, madeAt: number): ReplayVerdict {
    const now = this.now();
    this.forgetBefore(now - this.windowMs);
    if (Math.abs(now - madeAt) > this.windowMs || madeAt < this.floor) return "stale";
    if (this.seen.has(id)) return "replayed";
    if (this.seen.size >= this.capacity) {
      const [oldestId, oldestAt] = this.seen.entries().next().value!;
      this.seen.delete(oldestId);
      this.floor = Math.max(this.floor, oldestAt);
    }
    this.seen.set(id, now);
    return "fresh";
  }

  private forgetBefore(cutoff: number): void {
    for (const [id, at] of this.seen) {
      if (at >= cutoff) break;
      this.seen.delete(id);
    }
  }
}

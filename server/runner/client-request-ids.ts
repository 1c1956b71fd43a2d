// Idempotent sends (docs/runner.md "Idempotent sends"): POST /sessions/{id}/send may carry a
// client_request_id; a repeat of it for the same session within the window answers the first request_id and
// starts nothing, so an app can retry a send whose answer it never saw (a dropped connection, a relay switch).
// Memory only: an id does not survive a restart (a retry after a restart starts a new run). Bounded: entries
// expire after the window, and past `limit` the oldest go first, so hostile ids cannot grow the map.
export const CLIENT_REQUEST_ID_WINDOW_MS = 10 * 60 * 1000;
export const CLIENT_REQUEST_ID_LIMIT = 50_000;

interface Remembered {
  requestId: string;
  at: number;
}

export class ClientRequestIds {
  /** Insertion order is time order (the clock never goes back for one runner), so the oldest entry is first. */
  private readonly entries = new Map<string, Remembered>();

  constructor(
    private readonly now: () => number,
    private readonly windowMs = CLIENT_REQUEST_ID_WINDOW_MS,
    private readonly limit = CLIENT_REQUEST_ID_LIMIT,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The request a previous send with this id started, if it is still within the window. */
  find(sessionId: string, clientRequestId: string): string | undefined {
    this.evictExpired();
    return this.entries.get(keyOf(sessionId, clientRequestId))?.requestId;
  }

  remember(sessionId: string, clientRequestId: string, requestId: string): void {
    this.evictExpired();
    this.entries.set(keyOf(sessionId, clientRequestId), { requestId, at: this.now() });
    while (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!);
  }

  private evictExpired(): void {
    const oldestKept = this.now() - this.windowMs;
    for (const [key, entry] of this.entries) {
      if (entry.at > oldestKept) return;
      this.entries.delete(key);
    }
  }
}

/** Session ids never contain NUL (they are UUIDs), so the pair maps to one key without ambiguity. */
function keyOf(sessionId: string, clientRequestId: string): string {
  return `${sessionId}\u0000${clientRequestId}`;
}

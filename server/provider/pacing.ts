// min_request_interval_seconds (SPEC.md retry rule 7): request starts to one base_url scope are spaced by the
// interval, whichever agent sends them. The registry is process-wide so two agents sharing a scope share its
// pacing. Waiters form a FIFO chain per scope, so under concurrency requests start in the order they asked.
import type { Clock } from "../clock.ts";
import { normalizeBaseUrl } from "./settings.ts";

interface Scope {
  tail: Promise<void>;
  lastStart: number | undefined;
  /** Callers queued on `tail` and not yet through. */
  queued: number;
}

export class PacingRegistry {
  private readonly scopes = new Map<string, Scope>();

  /** Resolves when the caller may start its request; a caller aborted while queued leaves the queue. */
  async acquire(baseUrl: string, intervalSeconds: number, clock: Clock, signal: AbortSignal): Promise<void> {
    const key = normalizeBaseUrl(baseUrl);
    let scope = this.scopes.get(key);
    if (!scope) {
      scope = { tail: Promise.resolve(), lastStart: undefined, queued: 0 };
      this.scopes.set(key, scope);
    }
    const s = scope;
    const intervalMs = intervalSeconds * 1000;
    signal.throwIfAborted();
    // Nobody queued and no wait due: start now, without a trip through the queue (the common case).
    if (s.queued === 0 && (s.lastStart === undefined || s.lastStart + intervalMs - clock.now() <= 0)) {
      s.lastStart = clock.now();
      return;
    }
    s.queued += 1;
    const turn = s.tail.then(async () => {
      try {
        if (signal.aborted) return;
        const wait = s.lastStart === undefined ? 0 : s.lastStart + intervalMs - clock.now();
        if (wait > 0) await clock.sleep(wait, signal).catch(() => undefined);
        if (!signal.aborted) s.lastStart = clock.now();
      } finally {
        s.queued -= 1;
      }
    });
    s.tail = turn;
    await turn;
    signal.throwIfAborted();
  }
}

/** The process-wide registry every provider uses unless given its own. */
export const sharedPacing = new PacingRegistry();

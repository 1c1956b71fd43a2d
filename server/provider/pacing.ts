// min_request_interval_seconds (docs/provider.md "Retry rules" 7): request starts to one base_url scope are spaced by the
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
    // An abort ends this caller's wait at once, not when the callers ahead are through. Its turn stays in the
    // chain and passes straight on when reached (it sees the abort and sets no start), so the order of the
    // others is kept, and `queued` counts it until then.
    await untilSettledOrAborted(turn, signal);
    signal.throwIfAborted();
  }
}

/** Resolves when `turn` does or `signal` aborts, whichever is first; the abort listener goes either way. */
function untilSettledOrAborted(turn: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = (): void => resolve();
    const settled = (): void => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    turn.then(settled, settled);
  });
}

/** The process-wide registry every provider uses unless given its own. */
export const sharedPacing = new PacingRegistry();

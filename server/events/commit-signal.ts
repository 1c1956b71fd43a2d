// The in-process wake-up: waiters (long-polls, the forwarder) learn of a commit at once instead of polling.
// Subscribers hear every commit. A filtered waiter (a long-poll for one session or one request) is woken only
// by a commit that wrote an event its filter matches: with a thousand long-polls idle on other sessions, a
// commit used to wake (and re-read the log for) every one of them, and appends ran 5-11 times slower.
import { systemClock, type Clock } from "../clock.ts";
import { ListenerSet } from "../listeners.ts";

/** What a waiter waits for; an absent field matches any value, an empty filter every commit. */
export interface CommitFilter {
  sessionId?: string | undefined;
  requestId?: string | undefined;
}

type Waiter = { filter: CommitFilter; afterId: number; wake: () => void };

/** Key of one (session, request) pair a commit wrote; null stands for "absent" (application events). */
const pairKey = (sessionId: string | null, requestId: string | null) => JSON.stringify([sessionId, requestId]);

export class CommitSignal extends ListenerSet<number> {
  /** What the open transaction wrote so far. A rolled-back write stays here and only causes a spare wake-up. */
  private writtenSessions = new Set<string | null>();
  private writtenRequests = new Set<string | null>();
  private writtenPairs = new Set<string>();
  private readonly unfiltered = new Set<Waiter>();
  private readonly bySession = new Map<string, Set<Waiter>>();
  private readonly byRequest = new Map<string, Set<Waiter>>();

  /** `clock` times a finite wait (docs/server.md "Time"). */
  constructor(private readonly clock: Clock = systemClock) {
    super();
  }

  /** Notes an event written by the open transaction, so its commit wakes the waiters that match it. */
  written(sessionId: string | null, requestId: string | null): void {
    this.writtenSessions.add(sessionId);
    this.writtenRequests.add(requestId);
    this.writtenPairs.add(pairKey(sessionId, requestId));
  }

  /** After a commit: tells every subscriber the last committed id and wakes the matching waiters. */
  override notify(lastEventId: number): void {
    // A subscriber's failure is its own and never stops the others.
    super.notify(lastEventId, () => undefined);
    const woken = this.matchingWaiters();
    this.writtenSessions = new Set();
    this.writtenRequests = new Set();
    this.writtenPairs = new Set();
    for (const waiter of woken) if (lastEventId > waiter.afterId) waiter.wake();
  }

  /**
   * Resolves once an event newer than `afterId` that `filter` matches has committed (true), or when
   * `timeoutMs` passes or `signal` aborts (false). A newer commit already in (latest() > afterId) resolves at
   * once, whatever it holds: the caller reads the log to find out. With `timeoutMs` Infinity it keeps no timer:
   * the caller times the wait on its injected clock and aborts `signal` (the GET /events long-poll does).
   */
  waitBeyond(
    afterId: number,
    latest: () => number,
    timeoutMs: number,
    signal?: AbortSignal,
    filter: CommitFilter = {},
  ): Promise<boolean> {
    if (latest() > afterId) return Promise.resolve(true);
    if (timeoutMs <= 0 || signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      // The wait's own end, on the clock; aborted once the wait is over, so no timer outlives it.
      const sleeping = new AbortController();
      const finish = (woken: boolean) => {
        sleeping.abort();
        this.remove(waiter);
        signal?.removeEventListener("abort", onAbort);
        resolve(woken);
      };
      const onAbort = () => finish(false);
      if (Number.isFinite(timeoutMs))
        this.clock.sleep(timeoutMs, sleeping.signal).then(
          () => finish(false),
          () => undefined,
        );
      const waiter: Waiter = { filter, afterId, wake: () => finish(true) };
      this.add(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** How many waiters are waiting (for tests and benchmarks). */
  get waiting(): number {
    let count = this.unfiltered.size;
    for (const set of [...this.bySession.values(), ...this.byRequest.values()]) count += set.size;
    return count;
  }

  private matchingWaiters(): Waiter[] {
    const woken: Waiter[] = [...this.unfiltered];
    for (const sessionId of this.writtenSessions) {
      if (sessionId !== null) woken.push(...(this.bySession.get(sessionId) ?? []));
    }
    for (const requestId of this.writtenRequests) {
      if (requestId === null) continue;
      for (const waiter of this.byRequest.get(requestId) ?? []) {
        const { sessionId } = waiter.filter;
        if (sessionId === undefined || this.writtenPairs.has(pairKey(sessionId, requestId))) woken.push(waiter);
      }
    }
    return woken;
  }

  /** Indexes a waiter by its narrowest filter field: the request when it has one, else the session. */
  private indexOf(waiter: Waiter): Set<Waiter> {
    const { sessionId, requestId } = waiter.filter;
    if (requestId !== undefined) return setIn(this.byRequest, requestId);
    if (sessionId !== undefined) return setIn(this.bySession, sessionId);
    return this.unfiltered;
  }

  private add(waiter: Waiter): void {
    this.indexOf(waiter).add(waiter);
  }

  private remove(waiter: Waiter): void {
    const { sessionId, requestId } = waiter.filter;
    const set = this.indexOf(waiter);
    set.delete(waiter);
    // Drop emptied sets so one-off filters (request ids) do not accumulate keys forever.
    if (set.size === 0 && requestId !== undefined) this.byRequest.delete(requestId);
    else if (set.size === 0 && sessionId !== undefined) this.bySession.delete(sessionId);
  }
}

function setIn<K, V>(map: Map<K, Set<V>>, key: K): Set<V> {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  return set;
}
